"""The commands of ``mtsig``, one module each, which :mod:`mtsig.cli` loops over. A command module declares:

- ``add_args(parser)``: its flags (the shared blocks are in :mod:`mtsig.commands.common`);
- ``run(args, table, progress)``: its work, given the statistics table when the command reads one (else None) and
  the progress bar's factory. It returns a result (the loop writes it: ``-f``/``-o``/``-w``, ``--plot``,
  ``--html``, its warnings), a text to write, an exit status, or None when it wrote everything itself.

and, where it has them:

- ``check(args)``: what can be refused before any input is read;
- ``figure(result, args)``: ``--plot``; ``report(result, command)``: the ``--html`` page;
- ``finish(result, args, table)``: what else it writes (compare's ``--rank-dir``), after the warnings;
- ``output(result, args)``: its text when it is not the result in ``--format`` (score's ``--score-only``).
"""
