# The benchmark driver, sourced by scripts/bench-*.sh: timing, peak RSS,
# alternating order, checking answers and the machine line live here once,
# so that a bench file says only what it compares.
#
# A bench file sets WORK (its scratch folder) and OUT (where a tool
# writes), declares its tools, then runs them:
#
#   tool NAME COMMAND          # COMMAND runs with sh -c; ONLY filters NAME
#   prepare() { ...; }         # optional, defined after sourcing: before
#                              # every run (default: rm -rf "$OUT")
#   check() { ...; }           # optional, likewise: after a run that exited
#                              # 0 (tool name in $1); prints what is wrong
#                              # and returns 1, else prints nothing
#   note() { ...; }            # optional, likewise: after a good run, a few
#                              # words for the report (e.g. files written)
#   rounds RUNS                # every tool once per round, the order turned
#                              # by one each round, so a drift in the
#                              # machine's load falls on each tool alike
#   report                     # one Markdown row per tool
#
# Each run: /usr/bin/time's wall seconds, user + system CPU seconds and
# peak RSS of the process tree (GNU time's %M: the largest process), its
# exit status, and check's verdict. A run that fails, times out or is
# WRONG is reported as such and its tool is not run again.
#
# Environment every bench takes:
#   ONLY     an extended regex: run only the tools whose name matches
#   LOCK     a file each timed run holds with flock (for a machine shared
#            with other timing runs); waiting for it is not timed
#   TIMEOUT  seconds a run may take (default 0: no limit)
#   BUDGET   seconds per tool: no further round once one more run would
#            take it past this (default 0: no limit)

PATH="$PATH:$HOME/.cargo/bin"
TOOL_NAMES=()
TOOL_COMMANDS=()

have() { command -v "$1" >/dev/null 2>&1; }

# py_has MODULE [PYTHON]
py_has() { "${2:-python3}" -c "import $1" >/dev/null 2>&1; }

# spool_binary: $SPOOL if set, else this checkout's release build (built).
spool_binary() {
    if [ -z "${SPOOL:-}" ]; then
        cargo build --release -q -p spool-cli
        SPOOL=target/release/spool
    fi
}

# peer_python PIP_SPEC...: $PY if set, else a virtualenv in $WORK that has
# the peers the specs name (installed when an import of any fails).
peer_python() {
    if [ -n "${PY:-}" ]; then return 0; fi
    [ -x "$WORK/venv/bin/python" ] || python3 -m venv "$WORK/venv"
    PY="$WORK/venv/bin/python"
    local modules
    modules=$(printf '%s\n' "$@" | sed 's/[=<>].*//' | paste -sd, -)
    "$PY" -c "import $modules" 2>/dev/null || "$PY" -m pip install -q "$@"
}

# The machine line every result is printed under.
machine_line() {
    local cpu
    cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
    echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $cpu, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# tool NAME COMMAND
tool() {
    if [ -n "${ONLY:-}" ] && ! [[ $1 =~ $ONLY ]]; then return 0; fi
    TOOL_NAMES+=("$1")
    TOOL_COMMANDS+=("$2")
}

prepare() { rm -rf "$OUT"; }
check() { :; }
note() { :; }

# One timed run of tool $1 (its index); appends its line to $WORK/runs.txt,
# tab-separated: index, wall, user, sys, peak RSS KiB, note, verdict.
run_once() {
    local i=$1 status=0 verdict=ok said=""
    prepare
    ${LOCK:+flock "$LOCK"} /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" \
        timeout "${TIMEOUT:-0}" sh -c "${TOOL_COMMANDS[$i]}" \
        >"$WORK/stdout.txt" 2>"$WORK/stderr.txt" || status=$?
    if [ "$status" = 124 ]; then
        verdict="timed out after ${TIMEOUT}s"
    elif [ "$status" != 0 ]; then
        verdict="failed ($status): $(grep -v '^Command' "$WORK/stderr.txt" | grep . | tail -n 1 | cut -c1-120)"
    elif ! said=$(check "${TOOL_NAMES[$i]}"); then
        verdict="WRONG: ${said:-check failed}"
    else
        said=$(note "${TOOL_NAMES[$i]}")
    fi
    local wall user sys rss
    read -r wall user sys rss < <(tail -n 1 "$WORK/time.txt")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$wall" "$user" "$sys" "$rss" "$said" "$verdict" >>"$WORK/runs.txt"
    echo "${TOOL_NAMES[$i]}: $wall s, $verdict" >&2
}

# rounds RUNS
rounds() {
    local runs=$1 n=${#TOOL_NAMES[@]} round k i
    local -a done_with spent
    : >"$WORK/runs.txt"
    for ((round = 0; round < runs; round++)); do
        for ((k = 0; k < n; k++)); do
            i=$(((k + round) % n))
            [ -z "${done_with[$i]:-}" ] || continue
            local started=$SECONDS
            run_once "$i"
            spent[i]=$((${spent[$i]:-0} + SECONDS - started))
            if [ "$(tail -n 1 "$WORK/runs.txt" | cut -f7)" != ok ]; then
                done_with[i]=1
            elif [ "${BUDGET:-0}" != 0 ] && ((spent[i] * (round + 2) > BUDGET * (round + 1))); then
                done_with[i]=1
            fi
        done
    done
    prepare
}

# report: per tool the median wall [min–max], CPU and peak RSS of its good
# runs, how many, its median wall as a multiple of the first tool's, and
# the last good run's note.
report() {
    echo "| tool | wall s, median [min–max] | CPU s | peak RSS MiB | runs | wall vs ${TOOL_NAMES[0]} | |"
    echo "|---|---:|---:|---:|---:|---:|---|"
    local i
    for i in "${!TOOL_NAMES[@]}"; do
        awk -F'\t' -v i="$i" -v name="${TOOL_NAMES[$i]}" '
            function median(a, n,   j, k, t) {
                for (j = 1; j <= n; j++) for (k = j + 1; k <= n; k++) if (a[k] < a[j]) { t = a[j]; a[j] = a[k]; a[k] = t }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            }
            $1 == 0 && $7 == "ok" { base[++b] = $2 }
            $1 == i && $7 == "ok" { n++; wall[n] = $2; cpu[n] = $3 + $4; rss[n] = $5; said = $6 }
            $1 == i && $7 != "ok" { bad = $7 }
            END {
                if (n == 0) { printf "| %s | %s | | | 0 | | |\n", name, bad; exit }
                lo = hi = wall[1]; for (j = 2; j <= n; j++) { if (wall[j] < lo) lo = wall[j]; if (wall[j] > hi) hi = wall[j] }
                m = median(wall, n)
                ratio = b ? sprintf("%.2fx", m / median(base, b)) : ""
                printf "| %s | %.2f [%.2f–%.2f]%s | %.2f | %.0f | %d | %s | %s |\n", name, m, lo, hi, (bad ? ", then " bad : ""), median(cpu, n), median(rss, n) / 1024, n, ratio, said
            }' "$WORK/runs.txt"
    done
}
