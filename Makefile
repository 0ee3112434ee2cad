# The two commands a newcomer needs are `make demo` and `make check`; the rest are for developers.
# Every target installs what is missing first (scripts/install-deps is idempotent and quick when
# everything is present): `make build` and `make demo` what building kbdata needs, the others
# also what the tests and benchmarks run (PostgreSQL, Chromium, clang, the npm peers).

BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
CORPUS     ?= $(abspath ../shared/parquet-corpus)
# The Python the module (import kbdata) is built for and tested with: Debian's, whose packages
# (pandas, numpy, pytest) it sees; `python3` on PATH may be another (docs/python.md).
PYTHON     ?= /usr/bin/python3
SAMPLE     := data/sample

.PHONY: all deps build-deps build build-all python python-install demo check test golden soak sanitize bench bench-diagnostics fixtures clean fuzz format format-check

all: build

deps:
	@scripts/install-deps

build-deps:
	@scripts/install-deps build

# The build folder knows the tests and the benchmarks (-DKBDATA_BENCH=ON), but `make demo` compiles
# only the kbdata binary and its HTTP module, and `make build` those and the Python module (its
# tests are in `make check` and `make python`). `make check` compiles
# everything: every test, and every benchmark (compiled, not run), so that an API change cannot
# leave the benchmarks broken.
$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DKBDATA_WERROR=ON -DKBDATA_BENCH=ON \
	  -DPython_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS)

build: build-deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target kbdata kbdata_python

# The Python module (docs/python.md): built into $(BUILD)/python/kbdata and tested with $(PYTHON).
python: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target kbdata kbdata_python
	ctest --test-dir $(BUILD) --output-on-failure -R '^python_'

# Makes `import kbdata` work for $(PYTHON) (Debian's, or a venv's: PYTHON=.venv/bin/python): a
# kbdata.pth in its site-packages (a venv's) or user site-packages (Debian's) pointing at
# $(BUILD)/python. Nothing is copied: a rebuild is seen at once.
python-install: build
	@$(PYTHON) -c 'import sys, site, os; \
	  venv = sys.prefix != sys.base_prefix; \
	  d = site.getsitepackages()[0] if venv else site.getusersitepackages(); \
	  os.makedirs(d, exist_ok=True); \
	  p = os.path.join(d, "kbdata.pth"); \
	  open(p, "w").write(os.path.abspath("$(BUILD)/python") + "\n"); \
	  print("python-install: wrote", p)'
	@$(PYTHON) -c 'import kbdata; print("python-install: import kbdata works for $(PYTHON):", kbdata.__file__)'

build-all: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# kbdata's main job on the bundled sample (data/sample: a small synthetic data set made by
# `kbdata synth`, both schema families): what is there, a problem's scored submissions (with its
# reliability note), one submission with its code, a legacy per-run config in the same model, and
# the analyses: a ranking, a record series, a user's progression with its plot, and what the
# winners' kernels use.
demo: build-deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target kbdata
	@echo "== kbdata configs --data $(SAMPLE)"
	@$(BUILD)/kbdata configs --data $(SAMPLE)
	@echo
	@echo "== kbdata submissions --data $(SAMPLE) --problem nvfp4_dual_gemm --scored --columns submission_id,user_name,submission_time,score,runner"
	@$(BUILD)/kbdata submissions --data $(SAMPLE) --problem nvfp4_dual_gemm --scored --columns submission_id,user_name,submission_time,score,runner | head -12
	@echo
	@echo "== kbdata submissions --data $(SAMPLE) --problem amd-fp8-mm --scored --columns submission_id,user_id,submission_time,score,status"
	@$(BUILD)/kbdata submissions --data $(SAMPLE) --problem amd-fp8-mm --scored --columns submission_id,user_id,submission_time,score,status | head -8
	@echo
	@echo "== kbdata show --data $(SAMPLE) 30000856 | head -30"
	@$(BUILD)/kbdata show --data $(SAMPLE) 30000856 | head -30
	@echo
	@echo "== kbdata top --data $(SAMPLE) --problem nvfp4_dual_gemm -n 5"
	@$(BUILD)/kbdata top --data $(SAMPLE) --problem nvfp4_dual_gemm -n 5
	@echo
	@echo "== kbdata records --data $(SAMPLE) --problem trimul --runner H100"
	@$(BUILD)/kbdata records --data $(SAMPLE) --problem trimul --runner H100
	@echo
	@echo "== kbdata progression --data $(SAMPLE) --user tonda --problem nvfp4_dual_gemm --plot $(BUILD)/tonda.svg | head -12"
	@$(BUILD)/kbdata progression --data $(SAMPLE) --user tonda --problem nvfp4_dual_gemm --plot $(BUILD)/tonda.svg | head -12
	@echo
	@echo "== kbdata techniques --data $(SAMPLE) --winners -p nvfp4_gemm"
	@$(BUILD)/kbdata techniques --data $(SAMPLE) --winners -p nvfp4_gemm
	@echo
	@echo "== kbdata pairs --data $(SAMPLE) -p nvfp4_gemm --exclude-flagged --out $(BUILD)/gemm-pairs.parquet"
	@$(BUILD)/kbdata pairs --data $(SAMPLE) -p nvfp4_gemm --exclude-flagged --out $(BUILD)/gemm-pairs.parquet

# The C++ sources follow .clang-format: `make check` fails on a file that does not (naming it),
# `make format` rewrites them.
FORMAT_SOURCES = $(shell find src tests bench fuzz -name '*.cc' -o -name '*.h' | sort)
format-check: deps
	@clang-format --dry-run -Werror $(FORMAT_SOURCES) || \
	  { echo "format-check: run 'make format' to fix the files above"; exit 1; }

format: deps
	clang-format -i $(FORMAT_SOURCES)

# The conformance summary is printed first (ctest shows a passing test's output only with -V);
# ctest then runs everything, the conformance test included, and decides the exit status.
check: build-all format-check
	@KBDATA_CORPUS=$(CORPUS) $(BUILD)/tests/conformance/conformance_test --gtest_brief=1 2>&1 \
	  | grep -E '^conformance:' || true
	KBDATA_CORPUS=$(CORPUS) ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test: check

# The golden outputs (tests/golden/golden_test.cc): every reading command on the bundled sample in
# every format, rewritten from this build's kbdata. Review `git diff tests/golden/expected` before
# committing: a change there is a change in what users see.
golden: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target kbdata golden_test
	KBDATA_UPDATE_GOLDEN=1 $(BUILD)/tests/golden/golden_test --gtest_brief=1

# The reader's randomized peer test (tests/random/README.md) on fresh seeds: random tables written
# by DuckDB (V1 and V2, flat and nested) read by `kbdata cat`, and KernelBot files of random column
# types read by `kbdata submissions`, compared with DuckDB's reading, seed after seed until
# SOAK_SECONDS are spent. KBDATA_SOAK_SEED=N runs seed N alone (and keeps its files in
# $(BUILD)/soak-out). Failing files stay in $(BUILD)/soak-out.
SOAK_SECONDS ?= 600
soak: deps build
	node tests/random/random_duckdb.mjs $(BUILD)/kbdata $(BUILD)/soak-out --soak $(SOAK_SECONDS)

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: deps
	cmake -S . -B $(BUILD)-asan -G Ninja -DKBDATA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	cmake --build $(BUILD)-asan -j $(JOBS)
	KBDATA_CORPUS=$(CORPUS) ctest --test-dir $(BUILD)-asan --output-on-failure -j $(JOBS)

# Benchmarks (bench/README.md, docs/BENCHMARKS.md): builds in Release, makes the full synthetic set
# once in two layouts of the flat family and once with both families (`kbdata synth`, ~1 min each;
# made again when the sources that decide its bytes change) and runs the comparison of the kbdata
# binary with DuckDB (duckdb_compare, ~12 min on 2 cores: it writes build/bench-data/duckdb-copy/
# with DuckDB first; DuckDB's dedup and convert of the 1.37 GB file take 6-8 GB of RAM each),
# decode_bench, noise and audit against stats with the audit's bound (analysis_bench.sh, ~3 min),
# pairs against dedup --fuzzy and a DuckDB statement (pairs_bench.sh, ~5 min), place and tasks
# against DuckDB statements and their bounds (evaluation_bench.sh, ~1 min), serve's pages against
# stats (serve_bench.sh, ~1 min), the hub against curl (hub_bench.sh, ~1 min) and the Python
# module's DataFrame against the command (python_bench.sh, ~2 min), and every command the one table
# writer renders on the medium set against BASELINE=OLD_KBDATA when given (answers_bench.sh, ~3
# min; times only without it). Figures are ratios within one run.
BENCH_SYNTH = stamp=$$(cat src/synth/*.cc src/synth/*.h src/parquet/write/*.h | sha256sum | cut -c1-16); \
	for set in published kbdata full; do \
	  out=build/bench-data/synth-$$set; \
	  case $$set in \
	    full) args="--scale full --seed 1" ;; \
	    *) args="--scale full --family flat --seed 1 --layout $$set" ;; \
	  esac; \
	  if [ ! -f $$out/nvidia_nvfp4_submissions.parquet ] || \
	     [ "$$(cat $$out/.stamp 2>/dev/null)" != "$$stamp" ]; then \
	    rm -rf $$out; \
	    if [ $$set = published ]; then rm -rf build/bench-data/duckdb-copy build/bench-data/nvfp4; fi; \
	    $(BUILD)-bench/kbdata synth $$args --out $$out && echo $$stamp > $$out/.stamp || exit 1; \
	  fi; \
	done; \
	mkdir -p build/bench-data/nvfp4 && \
	ln -f build/bench-data/synth-published/nvidia_nvfp4_submissions.parquet \
	  build/bench-data/synth-published/leaderboards.parquet build/bench-data/nvfp4/
bench: deps
	node bench/make-bench-data.mjs
	cmake -S . -B $(BUILD)-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DKBDATA_BENCH=ON -DKBDATA_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(BUILD)-bench -j $(JOBS) --target kbdata kbdata_python duckdb_query duckdb_compare decode_bench audit_bench
	@$(BENCH_SYNTH)
	$(BUILD)-bench/bench/duckdb_compare
	$(BUILD)-bench/bench/decode_bench
	bench/analysis_bench.sh $(BUILD)-bench/kbdata build/bench-data/synth-full build/bench-data/nvfp4 3 \
	  $(BUILD)-bench/bench/audit_bench
	bench/pairs_bench.sh $(BUILD)-bench/kbdata $(BUILD)-bench/bench/duckdb_query build/bench-data/nvfp4 3
	bench/evaluation_bench.sh $(BUILD)-bench/kbdata $(BUILD)-bench/bench/duckdb_query build/bench-data/nvfp4 3
	bench/serve_bench.sh $(BUILD)-bench/kbdata build/bench-data/nvfp4 3
	bench/hub_bench.sh $(BUILD)-bench/kbdata build/bench-data/synth-published build/bench-data/synth-kbdata
	bench/python_bench.sh $(BUILD)-bench build/bench-data/nvfp4 3 $(PYTHON)
	BASELINE=$(BASELINE) bench/answers_bench.sh $(BUILD)-bench/kbdata 5

# The diagnostics of single library layers (bench/README.md): memory, writer, loader, fuzzy dedup,
# export against PostgreSQL's COPY (a throwaway server, ~3 min). The large file needs ~11 GB of RAM.
bench-diagnostics: deps
	node bench/make-bench-data.mjs
	node bench/make-bench-data.mjs --large
	cmake -S . -B $(BUILD)-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DKBDATA_BENCH=ON -DKBDATA_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(BUILD)-bench -j $(JOBS) --target kbdata memory_bench write_bench load_bench dedup_bench audit_bench
	@$(BENCH_SYNTH)
	$(BUILD)-bench/bench/memory_bench
	$(BUILD)-bench/bench/write_bench
	$(BUILD)-bench/bench/load_bench
	bench/export_bench.sh $(BUILD)-bench/kbdata medium
	$(BUILD)-bench/bench/dedup_bench
	$(BUILD)-bench/bench/audit_bench

# libFuzzer (docs/parquet.md, "Hostile input"; docs/audit.md for fuzz_audit): builds the five
# targets with clang in build-fuzz/, seeds build-fuzz/corpus/ from tests/data (the audit's from the
# labelled kernels of the audit and the techniques) and the corpus's files of at most 64 KiB, and runs each target for
# FUZZ_SECONDS. Crashes and their inputs land in build-fuzz/findings/<target>/.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz_read_file fuzz_footer fuzz_page fuzz_snappy fuzz_audit
fuzz: deps
	CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DKBDATA_FUZZ=ON -DKBDATA_TESTS=OFF $(CMAKE_ARGS)
	cmake --build build-fuzz -j $(JOBS) --target $(FUZZ_TARGETS) fuzz_seeds
	build-fuzz/fuzz/fuzz_seeds build-fuzz/corpus $$( (find tests/data -name '*.parquet'; \
	  [ -d $(CORPUS) ] && find $(CORPUS) -size -65k -type f -name '*.parquet*') | sort)
	@mkdir -p build-fuzz/corpus/audit; for f in tests/data/audit/*/* tests/data/techniques/*.py \
	    tests/data/techniques/*.cu; do \
	  for pick in 00 83; do { printf "\x$$pick"; cat "$$f"; } \
	    > build-fuzz/corpus/audit/$$pick-$$(basename "$$f"); done; done
	@failed=; for t in $(FUZZ_TARGETS); do \
	  dir=$${t#fuzz_}; mkdir -p build-fuzz/corpus/$$dir build-fuzz/findings/$$t; \
	  echo "== $$t for $(FUZZ_SECONDS) s"; \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  build-fuzz/fuzz/$$t build-fuzz/corpus/$$dir -max_total_time=$(FUZZ_SECONDS) \
	    -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 \
	    -artifact_prefix=build-fuzz/findings/$$t/ || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: findings from$$failed in build-fuzz/findings/"; exit 1; fi

# Regenerates the shipped test files and the demo sample with DuckDB (tools/fixtures/).
fixtures: deps
	node tools/fixtures/make-fixtures.mjs

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-bench
