"""``mtsig serve``: mtsig in a browser, on this machine.

A Starlette application served by uvicorn (``pip install 'mtsig[serve]'``): upload a reference and system outputs
(or pick them under ``--data``), run a comparison, follow its progress, read the report, and export it. Each run is
a bundle in ``--results``: the inputs' SHA-256 (never the texts themselves), the settings, the command that
reproduces it, its JSON (byte for byte what ``mtsig compare -f json`` prints), text, CSV, LaTeX and the HTML report.
Bundles are listed again after a restart. Runs wait in a bounded queue and run in their own processes (a cancelled
or killed run leaves no bundle behind).

Safety: bound to 127.0.0.1 by default, and another address needs ``--token``; every form carries a CSRF token;
uploads are limited in size and number; a path picked under ``--data`` must stay there; every name shown is
escaped.
"""
