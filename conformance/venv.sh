# Sourced by the scripts that run the conformance suite against implementations installed from
# PyPI (litellm/run.sh, thirdparty/run.sh). venv NAME REQUIREMENTS PYTHON BIN sets $venv to a
# virtual environment under the user's cache directory (platformkit/venvs/, as the packaging
# tests keep theirs) holding REQUIREMENTS (pinned) installed with PYTHON: one per requirements
# file and Python, made again when either changes or when an install did not finish (BIN, a
# program it must hold, is missing), one install at a time on this machine (flock).
venv() {
	_cache=${XDG_CACHE_HOME:-$HOME/.cache}
	[ "$(uname)" = Darwin ] && _cache=$HOME/Library/Caches
	_sum=$( { cat "$2"; "$3" -c 'import sys; print(sys.version, sys.executable)'; } | sha256sum | cut -c1-12)
	venv=$_cache/platformkit/venvs/$1-$_sum
	mkdir -p "$_cache/platformkit/venvs"
	(
		flock 9
		if [ ! -e "$venv/.platformkit-complete" ] || [ ! -x "$venv/bin/$4" ]; then
			echo "$1: installing $(grep -v '^#' "$2" | tr '\n' ' ')into $venv (once)"
			rm -rf "$venv"
			"$3" -m venv "$venv"
			"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$2"
			touch "$venv/.platformkit-complete"
		fi
	) 9>"$venv.lock"
}

# free_port prints a free TCP port of 127.0.0.1.
free_port() { "${python:-python3}" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# wait_for URL waits up to 120 s for URL to answer.
wait_for() {
	_i=0; until curl -s -o /dev/null "$1"; do _i=$((_i + 1)); [ $_i -lt 120 ] || { echo "$1 did not answer in 120 s"; return 1; }; sleep 1; done
}
