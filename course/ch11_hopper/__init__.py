"""Chapter 11, Hopper wgmma 와 TMA: everything of notebooks/11_*.ipynb in one folder (course/chapters.py lists it).

lesson.py (analysis helpers), exercises.py ("직접 해보기" 11-N), quiz.json (the checkpoint), notebook.py (the
notebook's generator: python -m course.ch11_hopper.notebook). Solutions: answers/ch11/; tests: tests/ch11/.
Records several chapters read stay in course/recorded/ (its README says which chapter reads which).
"""
