"""Chapter 10, Tensor Core mma: everything of notebooks/10_*.ipynb in one folder (course/chapters.py lists it).

lesson.py (analysis helpers), exercises.py ("직접 해보기" 10-N), quiz.json (the checkpoint), notebook.py (the
notebook's generator: python -m course.ch10_tensor_core.notebook). Solutions: answers/ch10/; tests: tests/ch10/.
records/: the GPU records only this chapter reads; records several chapters read stay in course/recorded/
(its README lists both; course.records finds a record by name in either).
"""
