"""Where a stage's Ray work runs: one settings model and one way to join or start Ray,
shared by every stage with a ``ray`` engine (ingest's WARC reading, retrieval's queries).

A stage's ``<section>.ray`` params name the cluster: ``address: null`` starts a Ray on
this machine for the stage (``num_cpus`` of its cores, null: all) and shuts it down
after; ``auto`` joins the cluster this machine belongs to (``ray start --head`` /
``ray start --address=...``); ``ray://host:10001`` reaches a remote cluster through Ray
Client. A cluster runs this checkout's ``prescient`` package (shipped with the job as a
``py_modules`` runtime environment), whatever version its nodes have installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator

from prescient.settings import Settings


class RayCluster(Settings):
    """The Ray a stage's ``ray`` engine uses (params ``<section>.ray``).

    Attributes:
        address: None: start a Ray on this machine for the stage; ``auto``: join the
            cluster this machine belongs to (``ray start``); ``ray://host:port``: a
            remote cluster through Ray Client.
        num_cpus: CPUs of the Ray started for the stage (None: every core); only
            without an address.
    """

    address: str | None
    num_cpus: int | None = Field(ge=1)

    @field_validator("address")
    @classmethod
    def _known_address(cls, value: str | None) -> str | None:
        if value is not None and value != "auto" and not value.startswith("ray://"):
            raise ValueError("must be null (a Ray on this machine), auto or ray://host:port")
        return value

    @model_validator(mode="after")
    def _cpus_only_for_a_local_ray(self) -> RayCluster:
        if self.address is not None and self.num_cpus is not None:
            raise ValueError(
                f"ray.num_cpus ({self.num_cpus}) applies to a Ray started here; "
                f"the cluster at {self.address} has its own: set it to null"
            )
        return self


def connect(settings: RayCluster) -> bool:
    """Join or start Ray as configured; False when this process already had a session
    (a notebook's, a test's), which is then used and left running."""
    import ray

    if ray.is_initialized():
        return False
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
    }
    if settings.address is None:
        ray.init(num_cpus=settings.num_cpus, **options)
    else:
        import prescient

        package = Path(prescient.__file__).parent
        ray.init(address=settings.address, runtime_env={"py_modules": [str(package)]}, **options)
    return True


def cluster_cpus() -> int:
    """CPUs of the Ray this process is connected to (at least 1)."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))
