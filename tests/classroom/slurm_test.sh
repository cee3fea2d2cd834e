#!/usr/bin/env bash
# tests/classroom/slurm_test.sh DIR: make grade-02 SLURM=1 on a one-node
# Slurm cluster started here, in DIR (Debian's slurm-wlm and munge, as root).
#
# Starts munged, slurmctld and slurmd with a minimal slurm.conf (one node,
# proctrack/linuxproc, task/none, no GPU: the PTX part), grades a class of
# four as a 4-task job array and its merge step, compares the merged
# gradebook with make grade-02's in one go on the same class, and stops
# its daemons whatever happens. Exit 0 when they agree.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
D=$(realpath -m "$1")
rm -rf "$D"
mkdir -p "$D"/{state,spool,munge,log}
chmod 700 "$D/munge"

host=$(hostname -s)
cpus=$(nproc)
dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$D/munge/munge.key"
cat >"$D/slurm.conf" <<EOF
ClusterName=tutorial
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.socket.2
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
JobCompType=jobcomp/none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=grade Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$D/slurm.conf

stop() {
    [ -f "$D/slurmd.pid" ] && kill "$(cat "$D/slurmd.pid")" 2>/dev/null || true
    [ -f "$D/slurmctld.pid" ] && kill "$(cat "$D/slurmctld.pid")" 2>/dev/null || true
    [ -f "$D/munged.pid" ] && kill "$(cat "$D/munged.pid")" 2>/dev/null || true
    sleep 1
}
trap stop EXIT

munged --socket="$D/munge/munge.socket.2" --key-file="$D/munge/munge.key" --pid-file="$D/munged.pid" \
    --log-file="$D/log/munged.log" --seed-file="$D/munge/seed" --force
slurmctld -f "$D/slurm.conf"
slurmd -f "$D/slurm.conf"
for _ in $(seq 60); do
    sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed)' && break
    sleep 1
done
sinfo

# the class: four folders of the hostile class
full=$D/hostile
python3 tests/classroom/hostile_class.py 02 "$full"
class=$D/class
mkdir -p "$class"
for s in lesson starter "wrong tc" "cheat, main.c"; do cp -a "$full/$s" "$class/$s"; done

python3 tests/classroom/grade.py 02 --submissions "$class" --out "$D/one-go" --no-gpu --jobs 2 >"$D/one-go.log"
python3 tests/classroom/grade.py 02 --submissions "$class" --out "$D/array" --no-gpu --slurm --task-cpus 1
bash "$D/array/slurm/submit.sh"
for _ in $(seq 600); do
    [ -z "$(squeue -h -o %i)" ] && break
    sleep 1
done
squeue
cat "$D/array/slurm/merge.log"
cols() { python3 -c 'import csv,sys; [print(r["student"], r["exercise"], r["ptx"], r["correct"], r["points"], r["reason"], sep="|") for r in csv.DictReader(open(sys.argv[1], encoding="utf-8"))]' "$1"; }
echo "one go:"
cols "$D/one-go/grades-02.csv"
echo "the array, merged:"
cols "$D/array/grades-02.csv"
tasks=$(ls "$D"/array/slurm/task-*.log | wc -l)
echo "$tasks task logs"
[ "$tasks" = 4 ] && diff <(cols "$D/one-go/grades-02.csv") <(cols "$D/array/grades-02.csv")
