# Shortcuts for the scripts in .ci/ (which work without make).
.PHONY: test demo bench
test: ; bash .ci/test
demo: ; bash .ci/demo
bench: ; bash .ci/bench
