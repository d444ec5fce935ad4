"""The local settings page (``tersh ui``): a Starlette app on 127.0.0.1 and its static files.

Nothing here is imported by the ``run`` or ``hook`` paths; starlette and uvicorn come with the
optional ``tersh[ui]`` extra.
"""
