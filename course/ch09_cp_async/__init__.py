"""Chapter 09, cp.async 와 트리플 버퍼링 (cp.async, triple buffering): everything of notebooks/09_*.ipynb in one folder (course/chapters.py lists it).

lesson.py (analysis helpers), exercises.py ("직접 해보기" 09-N), quiz.json (the checkpoint), notebook.py (the
notebook's generator: python -m course.ch09_cp_async.notebook). Solutions: answers/ch09/; tests: tests/ch09/.
records/: the GPU records only this chapter reads; records several chapters read stay in course/recorded/
(its README lists both; course.records finds a record by name in either).
"""
