# Shortcuts for the scripts in .ci/ (which work without make).
.PHONY: test demo bench fuzz fuzz-raw soak-concurrency soak-preview soak deb test-deb mutants
test: ; bash .ci/test
# recipe_VERSION_amd64.deb (Debian 12, no Swift needed to run it; see docs/install.md).
deb: ; bash .ci/package
# The .deb installed into a fresh minimal Debian 12 root (debootstrap) and used there.
test-deb: ; bash .ci/test-deb
demo: ; bash .ci/demo
bench: ; bash .ci/bench-identity
# 100,000 recipes checked, formatted and rendered with their time and memory measured.
fuzz: ; bash .ci/fuzz --runs 100000 --corpus Recipes --save-findings fuzz-findings
# 300 damaged copies of each camera raw rendered: exit 0 or a one-line exit 1, no crash, hang or blow-up.
fuzz-raw: ; bash .ci/fuzz-raw --mutants 300
# Two applies on one folder and two edits of one photo at once, 20 rounds each: nothing lost.
soak-concurrency: ; bash .ci/soak-concurrency 20
# 20,000 random and mutated requests to the preview server: no crash, every one answered, malformed ones closed within 10 s, RSS growth at most 20%.
soak-preview: ; python3 .ci/soak-preview 20000
# The bounded soak (about 45 minutes): mutated raws and sample photos of every format (WebP and TIFF
# written from the JPEGs by .ci/fuzz-formats) rendered,
# two processes at once, and the preview server's routes fuzzed; each reports its counts.
soak:
	bash .ci/fuzz-raw --mutants 100
	bash .ci/fuzz-raw --mutants 100 Recipes/photos/*.jpg Recipes/photos/*.png Tests/Fixtures/heif/*.heic Tests/Fixtures/heif/*.heif
	bash .ci/fuzz-formats --mutants 100
	bash .ci/soak-concurrency 20
	python3 .ci/soak-preview 20000
# Mutation testing: each deliberate bug of Tests/mutants.txt put in, built and its suites run; prints
# the kill rate and every survivor (a scratch copy in .build-mutants; 30-60 s a mutant, about 40 min).
mutants: ; python3 .ci/mutants
