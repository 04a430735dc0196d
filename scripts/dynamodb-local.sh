#!/usr/bin/env bash
# DynamoDB Local for tests and local runs.
#
#   scripts/dynamodb-local.sh install   fetch DynamoDB Local into .tools/dynamodb-local (no-op when present)
#   scripts/dynamodb-local.sh start     install, then run it in the background on $DYNAMODB_LOCAL_PORT (default 8000)
#   scripts/dynamodb-local.sh stop      stop the instance that `start` began
#
# DynamoDB Local ships inside the npm package amplify-dynamodb-simulator (its
# emulator/ folder holds DynamoDBLocal.jar and DynamoDBLocal_lib), so npm is
# the only registry needed. Go tests (pkg/store/dynamo/dynamotest) start their
# own in-memory instance from the same folder; `start` is for manual use:
#   export AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8000
set -euo pipefail

VERSION=2.9.30
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/.tools/dynamodb-local"
PORT="${DYNAMODB_LOCAL_PORT:-8000}"
PIDFILE="$DIR/dynamodb-local.pid"

# shellcheck source=lib.sh
source "$ROOT/scripts/lib.sh"

install() {
	# Java runs DynamoDB Local; the machine image has it, a bare Debian may not.
	command -v java >/dev/null || apt_install dynamodb-local default-jre-headless
	if [[ -f "$DIR/DynamoDBLocal.jar" && -d "$DIR/DynamoDBLocal_lib" ]]; then
		return 0
	fi
	command -v npm >/dev/null || apt_install dynamodb-local npm
	fetch
}

# fetch runs in a subshell, so its EXIT trap removes the download however it
# ends. (A RETURN trap set in a function stays set and fires again when the
# caller returns, after $tmp has gone out of scope: `start` on a clean
# machine died on "tmp: unbound variable".)
fetch() (
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	echo "dynamodb-local: fetching amplify-dynamodb-simulator@$VERSION" >&2
	(cd "$tmp" && npm pack --silent "amplify-dynamodb-simulator@$VERSION" >/dev/null)
	tar -xzf "$tmp"/amplify-dynamodb-simulator-*.tgz -C "$tmp"
	if [[ ! -f "$tmp/package/emulator/DynamoDBLocal.jar" ]]; then
		echo "dynamodb-local: package has no emulator/DynamoDBLocal.jar" >&2
		exit 1
	fi
	# Copy into a sibling and rename, so an interrupted install never leaves
	# a half-filled folder that the check above would accept.
	mkdir -p "$(dirname "$DIR")"
	rm -rf "$DIR.partial"
	cp -R "$tmp/package/emulator" "$DIR.partial"
	rm -rf "$DIR"
	mv "$DIR.partial" "$DIR"
	echo "dynamodb-local: installed in $DIR" >&2
)

start() {
	install
	command -v java >/dev/null || { echo "dynamodb-local: java is required" >&2; exit 1; }
	if [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
		echo "dynamodb-local: already running (pid $(cat "$PIDFILE"))" >&2
		return 0
	fi
	# Something else on the port would answer the readiness check below while
	# our Java fails to bind: refuse instead of reporting a false start.
	if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
		echo "dynamodb-local: port $PORT is already in use; set DYNAMODB_LOCAL_PORT" >&2
		exit 1
	fi
	# exec, so the recorded pid is Java's own and `stop` ends it.
	(cd "$DIR" && exec nohup java -Djava.library.path=DynamoDBLocal_lib -jar DynamoDBLocal.jar \
		-inMemory -sharedDb -disableTelemetry -port "$PORT" >"$DIR/dynamodb-local.log" 2>&1) &
	echo $! >"$PIDFILE"
	for _ in $(seq 1 300); do
		if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
			break # exited, e.g. the port is taken
		fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
			echo "dynamodb-local: listening on 127.0.0.1:$PORT (pid $(cat "$PIDFILE"))" >&2
			echo "export AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$PORT"
			return 0
		fi
		sleep 0.1
	done
	echo "dynamodb-local: did not start; see $DIR/dynamodb-local.log" >&2
	exit 1
}

stop() {
	if [[ -f "$PIDFILE" ]]; then
		kill "$(cat "$PIDFILE")" 2>/dev/null || true
		rm -f "$PIDFILE"
	fi
}

case "${1:-}" in
install) install ;;
start) start ;;
stop) stop ;;
*) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
