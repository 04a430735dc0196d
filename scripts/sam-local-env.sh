#!/usr/bin/env bash
# Prepares `sam local start-api` (docs/DEPLOY.md, "Running the functions under SAM locally"):
# starts DynamoDB Local, creates the table, creates a demo Agency account with an
# API key, and writes env.json with what the functions need under SAM's local
# emulation: the table name, the pepper (PEPPER) and DynamoDB Local's address as
# SAM's containers reach it (DYNAMODB_ENDPOINT). The functions accept PEPPER and
# DYNAMODB_ENDPOINT only when AWS_SAM_LOCAL=true, which SAM CLI sets.
#
# Environment (all optional):
#   DYNAMODB_LOCAL_PORT        port of DynamoDB Local (default 8000)
#   SAM_LOCAL_HOST_ENDPOINT    DynamoDB endpoint from this machine; when set, no
#                              DynamoDB Local is started (default http://127.0.0.1:PORT)
#   SAM_LOCAL_CONTAINER_ENDPOINT  the same endpoint from SAM's containers
#                              (default http://host.docker.internal:PORT)
#   SAM_LOCAL_TABLE            table name (default policygen-local)
#   SAM_LOCAL_DIR              where the pepper and env.json go (default .data/sam-local)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PORT="${DYNAMODB_LOCAL_PORT:-8000}"
DIR="${SAM_LOCAL_DIR:-$ROOT/.data/sam-local}"
TABLE="${SAM_LOCAL_TABLE:-policygen-local}"
CONTAINER_ENDPOINT="${SAM_LOCAL_CONTAINER_ENDPOINT:-http://host.docker.internal:$PORT}"
if [[ -z "${SAM_LOCAL_HOST_ENDPOINT:-}" ]]; then
	DYNAMODB_LOCAL_PORT="$PORT" scripts/dynamodb-local.sh start
	HOST_ENDPOINT="http://127.0.0.1:$PORT"
else
	HOST_ENDPOINT="$SAM_LOCAL_HOST_ENDPOINT"
fi
mkdir -p "$DIR"

export AWS_ENDPOINT_URL_DYNAMODB="$HOST_ENDPOINT" AWS_REGION="${AWS_REGION:-us-east-1}"
export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_EC2_METADATA_DISABLED=true
policyctl() { go run ./cmd/policyctl --store "dynamodb:$TABLE" --pepper-file "$DIR/pepper" "$@"; }

policyctl table create >/dev/null
account=$(policyctl account create --email demo@example.com --name "SAM local demo" --plan agency)
key=$(printf '%s' "$account" | sed -n 's/.*"apiKey": *"\([^"]*\)".*/\1/p' | head -1)
if [[ -z "$key" ]]; then
	echo "sam-local-env: policyctl did not print a key: $account" >&2
	exit 1
fi
pepper=$(tr -d '[:space:]' <"$DIR/pepper")

cat >"$DIR/env.json" <<JSON
{
  "Parameters": {
    "TABLE_NAME": "$TABLE",
    "PEPPER": "$pepper",
    "DYNAMODB_ENDPOINT": "$CONTAINER_ENDPOINT",
    "PEPPER_SECRET_ID": ""
  }
}
JSON
# The walk-through runs sam from the repository root: put env.json there
# too, unless another directory was asked for.
if [[ -z "${SAM_LOCAL_DIR:-}" ]]; then
	cp "$DIR/env.json" "$ROOT/env.json"
fi

cat <<MSG
env.json written (table $TABLE, DynamoDB Local at $CONTAINER_ENDPOINT from SAM's containers).
Demo Agency API key (shown once): $key

  sam build
  sam local start-api --env-vars env.json --add-host host.docker.internal:host-gateway
  curl -sS http://127.0.0.1:3000/v1/auth/profile -H "Authorization: Bearer $key"
MSG
