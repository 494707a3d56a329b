"""Quarto's post-render step for this book (_quarto.yml, project.post-render): run by `quarto render`
with QUARTO_PYTHON in the project folder.  What it does: costbook.book.quarto.post_render."""
import sys
from pathlib import Path

from costbook.book.quarto import post_render

sys.exit(post_render(Path.cwd()))
