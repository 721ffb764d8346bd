"""Interactive ipywidgets views over the pure models in sim/."""
