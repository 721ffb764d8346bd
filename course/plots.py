"""Matplotlib with a Korean font that ships with the package (koreanize-matplotlib bundles NanumGothic), so labels render anywhere."""
import koreanize_matplotlib  # noqa: F401  (registers NanumGothic and makes it the default family)
import matplotlib
import matplotlib.pyplot as plt

FONT = matplotlib.rcParams["font.family"]


def subplots(*args, **kwargs):
    """plt.subplots with the course's Korean font in place."""
    return plt.subplots(*args, **kwargs)
