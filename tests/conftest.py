"""Marks integration tests so a developer can run `pytest -m "not integration"` in seconds.

A test is `integration` when it, a fixture it uses or a helper it calls (followed through the test
modules, not into the project's packages) starts something outside the test process or a real device
end: a subprocess, a pseudo-terminal, a Mosquitto or embedded broker, headless Chromium, the firmware
simulator or a bridge on a port. The test files themselves carry no marks, so each team can move and
add tests freely; a test this hook misjudges can still say `@pytest.mark.integration` itself.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import pytest

from tests.support.browser import browser  # noqa: F401 - one Chromium for the whole session
from tests.support.postgres import postgres_cluster  # noqa: F401 - one PostgreSQL for the whole session

# Names that, used anywhere in a test's reach, mean it starts one of those things. Module names catch
# `import subprocess` and `subprocess.run`; the others are the project's and the tests' own launchers.
RESOURCE_NAMES = frozenset(
    {
        "subprocess",
        "Popen",
        "pty",
        "openpty",
        "multiprocessing",
        "running_mosquitto",
        "MOSQUITTO",
        "amqtt",
        "EmbeddedBroker",
        "start_embedded_broker",
        "playwright",
        "sync_playwright",
        "chromium",
        "FirmwareSim",
        "firmware_bridge.sim",
        "firmware_bridge.host",
        "firmware_bridge.port",
        "Bridge",
    }
)
# Modules whose functions and classes are launchers themselves (a fixture imported from them counts).
RESOURCE_MODULES = (
    "subprocess",
    "pty",
    "playwright",
    "amqtt",
    "tests.support.broker",
    "controller.testing",
    "firmware_bridge.sim",
    "firmware_bridge.host",
    "firmware_bridge.port",
)


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    codes = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            codes += _code_objects(const)
    return codes


def _unwrap(func: Any) -> Any:
    inner = getattr(getattr(func, "hypothesis", None), "inner_test", None)  # @given wraps the real test
    return inspect.unwrap(inner or func)


def _starts_something(obj: Any, seen: set[int]) -> bool:
    """Whether `obj` (a function, method or class of the tests) reaches a resource, following the
    functions and classes of test modules it names."""
    obj = _unwrap(obj)
    if id(obj) in seen:
        return False
    seen.add(id(obj))
    module = getattr(obj, "__module__", None) or ""
    if module.startswith(RESOURCE_MODULES):
        return True
    if isinstance(obj, type):
        return any(
            _starts_something(member, seen)
            for member in vars(obj).values()
            if inspect.isfunction(member) or isinstance(member, staticmethod | classmethod | property)
        )
    if isinstance(obj, staticmethod | classmethod):
        return _starts_something(obj.__func__, seen)
    if isinstance(obj, property):
        return any(_starts_something(f, seen) for f in (obj.fget, obj.fset) if f is not None)
    code = getattr(obj, "__code__", None)
    if code is None:
        return False
    names: set[str] = set()
    for c in _code_objects(code):
        names.update(c.co_names)
    if names & RESOURCE_NAMES:
        return True
    scope = getattr(obj, "__globals__", {})
    for name in names:
        value = scope.get(name)
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith(RESOURCE_MODULES):
                return True
            continue
        value_module = getattr(value, "__module__", None) or ""
        if value_module.startswith(RESOURCE_MODULES):
            return True
        # Follow only the tests' own helpers: the project's packages are what the tests exercise.
        if (
            (value_module.startswith("tests") or value_module == module)
            and (inspect.isfunction(value) or isinstance(value, type))
            and _starts_something(value, seen)
        ):
            return True
    return False


def is_integration(item: pytest.Item) -> bool:
    seen: set[int] = set()
    function = getattr(item, "function", None)
    if function is not None and _starts_something(function, seen):
        return True
    fixture_info = getattr(item, "_fixtureinfo", None)
    for name in getattr(item, "fixturenames", ()):
        defs = fixture_info.name2fixturedefs.get(name, ()) if fixture_info is not None else ()
        # pytest's own fixtures (tmp_path, monkeypatch, ...) start nothing; only the tests' are read.
        ours = [
            d.func
            for d in defs
            if (getattr(d.func, "__module__", "") or "").startswith(("tests", *RESOURCE_MODULES))
        ]
        if any(_starts_something(func, seen) for func in ours):
            return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("integration") is None and is_integration(item):
            item.add_marker(pytest.mark.integration)
