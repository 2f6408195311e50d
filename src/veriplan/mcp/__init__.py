"""veriplan for agents: ``veriplan mcp``, a Model Context Protocol server.

- :mod:`veriplan.mcp.config`: the roots, limits and model a server starts with;
- :mod:`veriplan.mcp.tools`: the tools' work in plain Python;
- :mod:`veriplan.mcp.models`: the documents they return (versioned schemas);
- :mod:`veriplan.mcp.server`, :mod:`veriplan.mcp.methods` and
  :mod:`veriplan.mcp.calls` (how a tool call runs): the SDK side (these import
  the ``mcp`` SDK: ``pip install 'veriplan[mcp]'``).

See docs/mcp.md.
"""
