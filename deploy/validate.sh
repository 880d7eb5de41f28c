#!/usr/bin/env bash
# Validates the deploy files; see deploy/README.md. From the repository root:
#
#   bash deploy/validate.sh
#
# Needs only python3 with pip and access to PyPI. It installs pinned validators
# into a private environment (reused by later runs while the pins are the same):
#   kubernetes-validate  Kubernetes JSON schemas 1.25..1.37 inside the package
#   check-jsonschema     ships the compose-spec schema (vendor.compose-spec)
#   dockerfile           BuildKit's Dockerfile parser (Go, compiled into the wheel)
# Nothing is downloaded at validation time, so it works offline once installed.
#
# Environment:
#   DECKHAND_VALIDATE_ENV   where to install (default /tmp/deckhand-deploy-validate)
#   DECKHAND_K8S_VERSIONS   Kubernetes versions to check against (default "1.25.0 1.37.0")
#   DECKHAND_VALIDATE_NO_VENV=1   skip `python3 -m venv` and use `pip install --target`
set -euo pipefail

deploy_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
env_dir="${DECKHAND_VALIDATE_ENV:-/tmp/deckhand-deploy-validate}"
pins=(kubernetes-validate==1.37.0 check-jsonschema==0.39.0 dockerfile==3.4.0)
stamp="$env_dir/.pins"
python="${PYTHON:-python3}"
start=$SECONDS

pip_quiet=(--quiet --disable-pip-version-check --no-input)

install() {
    rm -rf "$env_dir"
    # A venv where the `venv` module works; on a Debian without python3-venv,
    # fall back to a plain target directory put on PYTHONPATH (pip skips the
    # PEP 668 externally-managed check for --target).
    if [[ "${DECKHAND_VALIDATE_NO_VENV:-}" != 1 ]] \
        && "$python" -m venv "$env_dir/venv" >/dev/null 2>&1; then
        "$env_dir/venv/bin/python" -m pip install "${pip_quiet[@]}" "${pins[@]}"
        echo venv >"$env_dir/.kind"
    else
        rm -rf "$env_dir"
        mkdir -p "$env_dir"
        "$python" -m pip install "${pip_quiet[@]}" --target "$env_dir/site" "${pins[@]}"
        echo target >"$env_dir/.kind"
    fi
    echo "${pins[*]}" >"$stamp"
}

if [[ "$(cat "$stamp" 2>/dev/null || true)" != "${pins[*]}" ]]; then
    echo "== installing ${pins[*]} into $env_dir"
    install
else
    echo "== reusing ${pins[*]} in $env_dir"
fi

if [[ "$(cat "$env_dir/.kind")" == venv ]]; then
    run_python=("$env_dir/venv/bin/python")
else
    export PYTHONPATH="$env_dir/site${PYTHONPATH:+:$PYTHONPATH}"
    run_python=("$python")
fi
echo "   ($((SECONDS - start)) s)"

status=0
"${run_python[@]}" "$deploy_dir/validate.py" "$deploy_dir" || status=$?
echo "== done in $((SECONDS - start)) s"
exit "$status"
