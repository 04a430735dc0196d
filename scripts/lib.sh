# Shared by the scripts that install what tests need. Source it; it defines
# apt_install only.

# apt_install NAME PKG... installs Debian packages when this user may (root,
# or passwordless sudo); otherwise it says what is missing and fails. NAME
# prefixes the messages.
apt_install() {
	local name="$1" sudo=""
	shift
	if [[ $(id -u) -ne 0 ]]; then
		if sudo -n true 2>/dev/null; then sudo="sudo -n"; else
			echo "$name: please install: $*" >&2
			exit 1
		fi
	fi
	echo "$name: installing $* with apt-get" >&2
	# Another apt-get (a second make on a fresh machine, unattended
	# upgrades) may hold dpkg's lock: wait for it rather than fail.
	$sudo apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$@" >&2
}
