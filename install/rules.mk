# install/rules.mk - renders the manual page and installs heapbench the Debian way.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   everything of install/LAYOUT under $(DESTDIR)$(PREFIX)
#   make uninstall [PREFIX=...] [DESTDIR=]        removes exactly what install wrote (its MANIFEST)
#   make deb                                      the .deb through dpkg-buildpackage, into build/deb/
#   make deb-test                                 builds the .deb, extracts it, runs it outside the tree
#
# Always holds: what is installed is decided by install/LAYOUT alone (install/stage reads it), so a
# new library in build/lib/ or a new workload is installed with no change here; `make` renders every
# install/man/*.scd into build/man/ (scdoc), so a broken page breaks the build.

DESTDIR ?=

# scdoc renders the manual page (`make`); debhelper builds the package (dpkg-checkbuilddeps wants
# build-essential and the Build-Depends of debian/control: dh-python byte-compiles the Python package
# at install) and lintian checks it (`make deb`); mmdebstrap makes the bare Debian 12 root in which
# `make deb-test` installs and removes the package with apt-get; the completion tests source
# bash-completion's loader, and man-db's man checks that the page renders without warnings.
BUILD_PKGS += scdoc
TEST_PKGS  += debhelper build-essential dh-python lintian mmdebstrap bash-completion man-db

MAN_SRC   := $(wildcard install/man/*.scd)
MAN_PAGES := $(patsubst install/man/%.scd,$(B)/man/%,$(MAN_SRC))

ALL += $(MAN_PAGES)

.PHONY: install uninstall deb deb-test

$(B)/man/%: install/man/%.scd | $(B)/.dir
	@mkdir -p $(dir $@)
	scdoc < $< > $@.tmp && mv $@.tmp $@

install: all
	@install/stage install '$(DESTDIR)' '$(PREFIX)'

uninstall:
	@install/stage uninstall '$(DESTDIR)' '$(PREFIX)'

deb:
	@install/make-deb

deb-test:
	@install/tests/deb-test
