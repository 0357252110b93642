"""`fleet.yml` in the org tier's directory (docs/fleet.md), validated with pydantic: the bundle
sources, their verification keys, decision-log export and status reporting. Spelt after OPA's
configuration (`bundles`, `keys`, `signing: {keyid, scope}`, `polling: {min_delay_seconds,
max_delay_seconds}`, `decision_logs`, `status`, `labels`).

```yaml
labels: {team: platform}
bundles:
  acme:                                   # a name: the activated bundle's store and status
    url: https://bundles.example.com/acme.tar.gz   # or  oci: registry.example.com/acme/policy:1
    # or  path: /srv/cupcake/acme.tar.gz
    polling: {min_delay_seconds: 60, max_delay_seconds: 120}
    signing: {keyid: ci, scope: write}    # present: the bundle must be signed (signing.py)
    allow_rollback: false                 # an older revision than the active one is refused
    on_missing: deny                      # no verified bundle activated yet: deny (default) | allow
keys:
  ci: {key: keys/ci.pub.pem, algorithm: RS256}   # PEM text, a file (relative: to this dir), or an HMAC secret
decision_logs:
  otlp: {endpoint: http://collector:4318/v1/logs}
  syslog: [{address: siem.example.com:6514, transport: tcp, format: cef}]
  spool_max_records: 100000
status: {url: https://control.example.com/status}
```

`load(path)` -> FleetConfig; `FleetConfigError` (a CupcakeError) names the file and every problem.
Imported only off the eval path and, on the eval path, only when `fleet_active`'s parsed copy of
the file is missing (its MAC'd cache).
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cupcake_py.core.errors import CupcakeError

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


class FleetConfigError(CupcakeError):
    pass


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Polling(_Strict):
    min_delay_seconds: float = Field(default=60.0, gt=0, description="Shortest wait between two polls.")
    max_delay_seconds: float = Field(default=120.0, gt=0, description="Longest wait (also the backoff's cap).")

    @model_validator(mode="after")
    def _order(self) -> Polling:
        if self.max_delay_seconds < self.min_delay_seconds:
            raise ValueError("max_delay_seconds must be >= min_delay_seconds")
        return self


class Signing(_Strict):
    keyid: str | None = Field(default=None, description="The key of `keys:` to verify with (else the JWT's kid).")
    scope: str | None = Field(default=None, description="The scope the signature must carry.")


class BundleSource(_Strict):
    url: str | None = Field(default=None, description="HTTP(S) URL of the bundle (ETag / If-None-Match polling).")
    oci: str | None = Field(default=None, description="OCI reference host[:port]/repository[:tag|@digest].")
    path: str | None = Field(default=None, description="A local bundle archive or bundle directory.")
    plain_http: bool | None = Field(default=None, description="OCI over http (default: only for loopback hosts).")
    headers: dict[str, str] = Field(default_factory=dict, description="Extra request headers (e.g. Authorization).")
    polling: Polling = Field(default_factory=Polling)
    signing: Signing | None = Field(default=None, description="Present: the bundle must be signed and verify.")
    allow_rollback: bool = Field(default=False, description="Activate an older revision than the active one.")
    on_missing: Literal["deny", "allow"] = Field(default="deny", description="The answer while no verified "
                                                 "bundle of this source is activated.")

    @model_validator(mode="after")
    def _one_source(self) -> BundleSource:
        given = [k for k in ("url", "oci", "path") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError("give exactly one of url, oci, path")
        return self

    @property
    def kind(self) -> str:
        return "url" if self.url else "oci" if self.oci else "path"

    @property
    def location(self) -> str:
        return self.url or self.oci or self.path or ""


class Key(_Strict):
    key: str = Field(min_length=1, description="PEM public key text, a PEM file (relative to the org dir), or the "
                     "HMAC secret.")
    algorithm: str = Field(default="RS256", description="RS256, ES256, HS256, ...")


class OTLP(_Strict):
    endpoint: str = Field(description="OTLP/HTTP logs endpoint, e.g. http://collector:4318/v1/logs.")
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_seconds: float = Field(default=10.0, gt=0)


class Syslog(_Strict):
    address: str = Field(description="host:port of the syslog receiver.")
    transport: Literal["tcp", "udp"] = "tcp"
    format: Literal["rfc5424", "cef"] = "rfc5424"


class DecisionLogs(_Strict):
    otlp: OTLP | None = None
    syslog: list[Syslog] = Field(default_factory=list)
    batch_size: int = Field(default=500, ge=1, le=10_000)
    spool_max_records: int = Field(default=100_000, ge=1, description="Most unexported records kept for a sink "
                                   "that is down; older ones are skipped and counted as dropped.")
    min_delay_seconds: float = Field(default=5.0, gt=0, description="Wait between export rounds.")


class Status(_Strict):
    url: str | None = Field(default=None, description="POST OPA-style status reports here.")


class FleetConfig(_Strict):
    labels: dict[str, str] = Field(default_factory=dict)
    bundles: dict[str, BundleSource] = Field(default_factory=dict)
    keys: dict[str, Key] = Field(default_factory=dict)
    decision_logs: DecisionLogs | None = None
    status: Status | None = None

    @model_validator(mode="after")
    def _names(self) -> FleetConfig:
        import re

        bad = [n for n in self.bundles if not re.match(NAME_PATTERN, n)]
        if bad:
            raise ValueError(f"bundle names must match {NAME_PATTERN}: {', '.join(bad)}")
        unknown = [f"{n}: signing.keyid {b.signing.keyid}" for n, b in self.bundles.items()
                   if b.signing is not None and b.signing.keyid is not None and b.signing.keyid not in self.keys]
        if unknown:
            raise ValueError("unknown keys: " + "; ".join(unknown))
        return self


FILE_NAME = "fleet.yml"


def parse(text: str, where: str) -> FleetConfig:
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise FleetConfigError(f"{where}: not YAML: {e}") from None
    try:
        return FleetConfig.model_validate(value or {})
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}" for err in e.errors())
        raise FleetConfigError(f"{where}: {problems}") from None


def load(org_dir: str) -> FleetConfig | None:
    """The fleet configuration of the org dir; None when it has no fleet.yml."""
    path = os.path.join(org_dir, FILE_NAME)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise FleetConfigError(f"{path}: cannot be read: {e.strerror or e}") from None
    return parse(text, path)


def key_text(org_dir: str, key: Key) -> str:
    """The key material: a file's text when `key` names a file (relative to the org dir), else as written."""
    k = key.key
    if "\n" not in k and not k.startswith("-----"):
        p = k if os.path.isabs(k) else os.path.join(org_dir, k)
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as f:
                return f.read()
    return k
