"""Type hints of the compiled module ``tenantsim._tenantsim`` (use the
functions of ``tenantsim`` instead: they return DataFrames)."""

from typing import Dict, List, Literal, Optional, Tuple, Union

__version__: str

class TenantsimError(Exception):
    """Base class of every error tenantsim raises."""

class InputError(TenantsimError):
    """Bad input data, or a failure while running or writing results."""

class PolicyError(TenantsimError):
    """A policy gave an impossible answer."""

class UsageError(TenantsimError):
    """The call itself is wrong (as a command-line usage error)."""

class InterruptedRunError(TenantsimError):
    """The run was stopped by a signal."""

def run(
    scenario: str,
    out: str,
    *,
    threads: Optional[int] = None,
    seed: Optional[int] = None,
    reps: Optional[int] = None,
    no_plots: bool = False,
) -> str:
    """Run the scenario file into ``out``; the ``--json`` document as JSON text."""

def validate(path: str) -> str:
    """The description ``tenantsim validate`` prints."""

def scenario_toml(json: str) -> str:
    """The TOML text of a scenario given as JSON text."""

def load_trace(
    path: str,
) -> Tuple[Literal["models", "jobs"], Dict[str, Union[List[str], List[float], List[int]]]]:
    """The trace's kind and its columns."""
