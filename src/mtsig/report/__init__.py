"""Renderers: terminal tables (Rich), JSON, CSV, Markdown and LaTeX."""
