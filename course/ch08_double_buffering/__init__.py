"""Chapter 08, 더블 버퍼링 (double buffering): everything of notebooks/08_*.ipynb in one folder (course/chapters.py lists it).

lesson.py (analysis helpers), exercises.py ("직접 해보기" 08-N), quiz.json (the checkpoint), notebook.py (the
notebook's generator: python -m course.ch08_double_buffering.notebook). Solutions: answers/ch08/; tests: tests/ch08/.
It reads only records several chapters share, in course/recorded/ (its README lists which chapter reads which).
"""
