"""Fixtures of the integration tests beyond the shared ones of tests/conftest.py."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def plain_plane(request, control_plane):
    """A plane where no KubeVirt controller runs, for tests that write what the controller would write (status
    references, VMIs, start revisions): the harness's ``bare_plane`` (with the catalog loaded) when it exists,
    else the session's plane when that runs no KubeVirt."""
    try:
        plane = request.getfixturevalue("bare_plane")
    except pytest.FixtureLookupError:
        return control_plane
    if not getattr(plane, "lifecycle_catalog_loaded", False):
        plane.load_catalog(namespaces=("catalog",))
        plane.lifecycle_catalog_loaded = True
    return plane


@pytest.fixture
def plain_cli(plain_plane):
    """Run the CLI in-process against :func:`plain_plane` as admin."""
    from tests.conftest import run_cli

    def invoke(*args: str):
        return run_cli(list(args), environ={"HOME": "/nonexistent", "KUBECONFIG": str(plain_plane.kubeconfig("admin"))})

    return invoke
