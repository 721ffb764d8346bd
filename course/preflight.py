"""Imported first by `import course`: a missing or wrong install prints its fix before anything imports numba."""
from course import install_check

install_check.check()          # issue 17
