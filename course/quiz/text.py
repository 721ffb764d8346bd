"""Quiz text helpers shared by the widget and the printable sheets (no widget imports)."""
import html
import re

_FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.S)


def inline(text):
    """One line of Markdown -> HTML: escaped, `code` as <code> (a section title such as "4.3 `wait_group` 의 N")."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text or ""))


def md(text):
    """Tiny Markdown -> HTML: ``` fences, `code`, **bold**, paragraphs (input is escaped first)."""
    blocks, out = [], []
    text = _FENCE.sub(lambda m: blocks.append(m.group(1)) or f"\x00{len(blocks) - 1}\x00", text or "")
    for para in re.split(r"\n\s*\n", text):
        h = html.escape(para)
        h = re.sub(r"`([^`]+)`", r"<code>\1</code>", h)
        h = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", h)
        h = re.sub(r"\x00(\d+)\x00", lambda m: f"<pre>{html.escape(blocks[int(m.group(1))])}</pre>", h)
        out.append("<p>" + h.replace("\n", "<br>") + "</p>")
    return "".join(out)


def numbered_template(template):
    """The code template with its blanks shown as [1], [2], ... ."""
    n = iter(range(1, 100))
    return re.sub(r"___", lambda m: f"[{next(n)}]", template)
