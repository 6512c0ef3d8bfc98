"""The table server, with every reference cycle the collector finds kept for a look.
Run as `python -m tests.app.garbage_app` (PIQUET_* settings as for `python -m app`).

GET /test/garbage runs a full collection and answers with what it found since the
last call (each object in a few words), then forgets it. tests/app/test_cycles.py
plays over real sockets and asks it.
"""

from __future__ import annotations

import gc
import types
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app.__main__ import uvicorn_options
from app.main import create_app
from app.settings import Settings


def describe(obj: Any) -> str:
    """An object in a few words: its type; where code is involved, which code."""
    if isinstance(obj, types.FrameType):
        return f"frame {obj.f_code.co_filename}:{obj.f_code.co_name}"
    if isinstance(obj, types.CoroutineType):
        return f"coroutine {obj.cr_code.co_filename}:{obj.__qualname__}"
    if isinstance(obj, types.GeneratorType):
        return f"generator {obj.gi_code.co_filename}:{obj.__qualname__}"
    if isinstance(obj, types.FunctionType):
        return f"function {obj.__module__}.{obj.__qualname__}"
    if isinstance(obj, types.MethodType):
        return f"method {type(obj.__self__).__module__}.{obj.__qualname__}"
    if isinstance(obj, types.TracebackType):
        return f"traceback {obj.tb_frame.f_code.co_filename}:{obj.tb_frame.f_code.co_name}"
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


async def garbage(request: Request) -> JSONResponse:
    gc.collect()
    found = [describe(obj) for obj in gc.garbage]
    # Forget it: with DEBUG_SAVEALL off for a moment, or the next pass keeps it again.
    gc.set_debug(0)
    gc.garbage.clear()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    return JSONResponse(found)


def main() -> None:
    settings = Settings()
    app = create_app(settings, settle_gc=settings.collector_tuning)
    app.router.routes.append(Route("/test/garbage", garbage))
    gc.set_debug(gc.DEBUG_SAVEALL)  # every object the collector finds unreachable is kept
    uvicorn.run(app, **uvicorn_options(settings))


if __name__ == "__main__":
    main()
