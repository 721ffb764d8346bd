"""Chapter 10, Tensor Core mma: everything of notebooks/10_*.ipynb in one folder (course/chapters.py lists it).

lesson.py (analysis helpers), exercises.py ("직접 해보기" 10-N), quiz.json (the checkpoint), notebook.py (the
notebook's generator: python -m course.ch10_tensor_core.notebook). Solutions: answers/ch10/; tests: tests/ch10/.
Records several chapters read stay in course/recorded/ (its README says which chapter reads which).
"""
