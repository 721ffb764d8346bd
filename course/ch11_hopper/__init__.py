"""Chapter 11, Hopper wgmma 와 TMA: everything of notebooks/11_*.ipynb in one folder (course/chapters.py lists it).

lesson.py (analysis helpers), exercises.py ("직접 해보기" 11-N), quiz.json (the checkpoint), notebook.py (the
notebook's generator: python -m course.ch11_hopper.notebook). Solutions: answers/ch11/; tests: tests/ch11/.
records/: the GPU records only this chapter reads; records several chapters read stay in course/recorded/
(its README lists both; course.records finds a record by name in either).
"""
