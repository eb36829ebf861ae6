# Shortcuts for the scripts in .ci/ (which work without make).
.PHONY: test demo bench fuzz
test: ; bash .ci/test
demo: ; bash .ci/demo
bench: ; bash .ci/bench-identity
# 100,000 recipes checked, formatted and rendered with their time and memory measured (issue 24).
fuzz: ; bash .ci/fuzz --runs 100000 --corpus Recipes --save-findings fuzz-findings
