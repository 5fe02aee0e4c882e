#!/usr/bin/env python3
"""budget.py: the per-message instruction budget of a small message, counted by callgrind.

usage: bench/budget.py --ferry PREFIX [--size BYTES] [--iters N] [--keep DIR] [--compare]

Runs bench/latbw.c (built with PREFIX/bin/mpicc) on 2 ranks under valgrind --tool=callgrind,
once as a ping-pong (-t lat) and once as a window of 64 nonblocking sends (-t bw), and prints
instructions per message for the pieces of the path: the blocking send, the receive posted
before the message comes, the progress call that delivers it, an idle progress call, and
Isend/Irecv/Waitall per message of a window; then the data cache misses per ping-pong message of
callgrind's cache model.  Instruction counts do not depend on the load of
the machine (the timings of bench/run.sh do), which is why doc/methods/shm.md quotes them.

How the pieces are told apart: callgrind gives each function's calls and inclusive count.  An
idle poll is MPID_Progress_test when no method delivered anything: its count is the total less
the busy calls of the shm method, per idle call.  Polling while waiting for the peer is left out
of the receive (its amount depends on timing); the delivering poll is the shm busy path plus
one idle poll (the other methods it also polls).

--compare adds the same latbw.c built with Debian's MPICH (mpicc.mpich) and Open MPI
(mpicc.openmpi) and counts all three alike, from the MPI calls alone: with latbw -s a receiver
waits outside MPI (sleeping on a shared page) until the call that sent its message has returned,
so the message is there when the MPI call starts and the count holds the work of one message, not
the polls of a waiting rank (those depend on timing).  A library whose sends complete only
through progress (Debian's MPICH: UCX) still polls in the window's Waitall, and its window rows
hold those polls.  Collection is on only inside the MPI calls (their costs are exact; callgrind
counts calls also where collection is off, so no count of progress calls is printed).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile


def parse(path, events=('Ir',)):
    """Inclusive cost (the sum of the given events) and calls per function of one callgrind
    output."""
    names = {}
    cols = [0]
    selfc = collections.Counter()
    callee = collections.Counter()
    calls = collections.Counter()
    fn = cfn = None
    pending = None

    def name(kind, text):
        m = re.match(r'\((\d+)\)(?: (.*))?', text)
        if not m:
            return text
        key = (kind, m.group(1))
        if m.group(2) is not None:
            names[key] = m.group(2)
        return names[key]

    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('events:'):
                have = line.split()[1:]
                cols = [have.index(e) for e in events if e in have]
            elif line.startswith('fn='):
                fn = name('fn', line[3:])
            elif line.startswith('cfn='):
                cfn = name('fn', line[4:])
            elif line.startswith(('cfi=', 'cfl=')):
                name('fl', line[4:])
            elif line.startswith(('fl=', 'fi=', 'fe=')):
                name('fl', line[3:])
            elif line.startswith('calls='):
                pending = (cfn, int(line.split('=')[1].split()[0]))
            elif line and (line[0].isdigit() or line[0] in '+-*'):
                parts = line.split()
                ir = sum(int(parts[1 + c]) for c in cols if 1 + c < len(parts))
                if pending:
                    target, n = pending
                    pending = None
                    calls[target] += n
                    if target != fn:
                        callee[fn] += ir
                else:
                    selfc[fn] += ir
    incl = {}
    for f in set(selfc) | set(callee):
        short = f.split("'")[0].split('.')[0]  # drop clones' suffixes (.constprop.0)
        incl[short] = incl.get(short, 0) + selfc[f] + callee[f]
    ncalls = collections.Counter()
    for f, n in calls.items():
        ncalls[f.split("'")[0].split('.')[0]] += n
    return incl, ncalls


def per_call(incl, calls, f):
    return incl.get(f, 0) / calls[f] if calls[f] else 0.0


def libraries(prefix):
    """How to build and run latbw with each library: mpicc, mpiexec, extra environment and the
    variable that holds the rank (for callgrind's output names), and the function that one poll of
    its progress engine calls once (for reading the profiles by hand)."""
    lib = os.path.join(prefix, 'lib')
    return {
        'ferry': ([os.path.join(prefix, 'bin', 'mpicc')], [os.path.join(prefix, 'bin', 'mpiexec')],
                  {'LD_LIBRARY_PATH': lib + (':' + os.environ['LD_LIBRARY_PATH']
                                             if os.environ.get('LD_LIBRARY_PATH') else '')},
                  'PMI_RANK', 'MPID_Progress_test'),
        'mpich': (['mpicc.mpich'], ['mpiexec.mpich'], {}, 'PMI_RANK', 'ucp_worker_progress'),
        'ompi': (['mpicc.openmpi'], ['mpiexec.openmpi'],
                 {'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1'},
                 'OMPI_COMM_WORLD_RANK', 'opal_progress'),
    }


def run(prefix, exe, args, outdir, tag, cache_sim=False, lib='ferry', only=()):
    _, mpiexec, extra, rankvar, _ = libraries(prefix)[lib]
    env = dict(os.environ)
    env.update(extra)
    out = os.path.join(outdir, 'cg.%s.%%q{%s}' % (tag, rankvar))
    cmd = mpiexec + ['-n', '2', 'valgrind', '--tool=callgrind',
                     '--callgrind-out-file=' + out] + (['--cache-sim=yes'] if cache_sim else []) + [
                         '--collect-atstart=no'] * bool(only) + [
                             '--toggle-collect=' + f for f in only] + [exe] + args
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        sys.exit('budget.py: %s failed (%d):\n%s' % (' '.join(cmd), r.returncode, r.stderr[-2000:]))
    return [os.path.join(outdir, 'cg.%s.%d' % (tag, rank)) for rank in (0, 1)]


def compare(a, prefix, src, outdir):
    """Ferry, MPICH and Open MPI counted alike: whole MPI calls, each receiver waiting outside
    MPI until its message was sent (latbw -s), so that no call waits for it."""
    iters = max(100, a.iters // 5)
    sz = ['-m', str(a.size), '-M', str(a.size), '-i', str(iters), '-s']
    libs = libraries(prefix)
    cols = [n for n in ('ferry', 'mpich', 'ompi')
            if n == 'ferry' or shutil.which(libs[n][0][0])]
    res = {}
    for n in cols:
        exe = os.path.join(outdir, 'latbw.' + n)
        env = dict(os.environ)
        env.update(libs[n][2])
        subprocess.run(libs[n][0] + ['-O2', '-o', exe, src], check=True, env=env)
        # Costs collected only inside these calls (not start-up, barriers, latbw's own work).
        only = ['*MPI_' + c for c in ('Send', 'Recv', 'Isend', 'Irecv', 'Waitall')]
        lat_files = run(prefix, exe, sz + ['-t', 'lat'], outdir, n + '.slat', True, n, only)
        lat = [parse(f) for f in lat_files]
        miss = [[parse(f, ev)[0] for f in lat_files] for ev in (('D1mr', 'D1mw'), ('DLmr', 'DLmw'))]
        bw = [parse(f) for f in run(prefix, exe, sz + ['-t', 'bw'], outdir, n + '.sbw', False, n,
                                    only)]
        res[n] = (lat, miss, bw)

    def f(i, name):
        return i.get(name, 0)

    print()
    print('# the same latbw.c built with each library, each receiver waiting outside MPI until')
    print('# its message was sent (latbw -s): instructions per %d-byte message of whole MPI'
          % a.size)
    print('# calls; %d ping-pong iterations, %d windows of 64 (bench/budget.py --compare)' %
          (iters, max(4, iters // 10)))
    print('%-52s' % 'piece' + ''.join('%10s' % n for n in cols))

    def line(label, fn, fmt='%10.0f'):
        print('%-52s' % label + ''.join(fmt % fn(*res[n], libs[n][4]) for n in cols))

    def lat_call(lat, name, ranks=(0, 1)):
        return sum(f(lat[r][0], name) for r in ranks) / max(1, sum(lat[r][1][name] for r in ranks))

    line('MPI_Send, message there to take (ping-pong)',
         lambda lat, miss, bw, p: lat_call(lat, 'PMPI_Send'))
    line('MPI_Recv, message already there (ping-pong)',
         lambda lat, miss, bw, p: lat_call(lat, 'PMPI_Recv'))
    line('  one hop: MPI_Send + MPI_Recv',
         lambda lat, miss, bw, p: lat_call(lat, 'PMPI_Send') + lat_call(lat, 'PMPI_Recv'))

    def window(bw, rank, names):
        msgs = bw[rank][1]['PMPI_Isend' if rank == 0 else 'PMPI_Irecv']
        return sum(f(bw[rank][0], n) for n in names) / max(1, msgs)

    line('window of 64, sender: Isend + Waitall + ack, per message',
         lambda lat, miss, bw, p: window(bw, 0, ('PMPI_Isend', 'PMPI_Waitall', 'PMPI_Recv')))
    line('  of which MPI_Isend', lambda lat, miss, bw, p: window(bw, 0, ('PMPI_Isend',)))
    line('window of 64, receiver: Irecv + Waitall + ack, per message',
         lambda lat, miss, bw, p: window(bw, 1, ('PMPI_Irecv', 'PMPI_Waitall', 'PMPI_Send')))
    line('  of which MPI_Irecv', lambda lat, miss, bw, p: window(bw, 1, ('PMPI_Irecv',)))
    line('  of which MPI_Waitall', lambda lat, miss, bw, p: window(bw, 1, ('PMPI_Waitall',)))
    for k, label in enumerate(('L1 data misses per hop (cache model), Send + Recv',
                               'last-level data misses per hop, the same')):
        line(label, lambda lat, miss, bw, p, k=k: sum(
            f(miss[k][r], 'PMPI_Send') + f(miss[k][r], 'PMPI_Recv') for r in (0, 1)) /
             max(1, sum(lat[r][1]['PMPI_Send'] for r in (0, 1))), '%10.2f')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--ferry', required=True, help='Ferry installation prefix')
    ap.add_argument('--size', type=int, default=8, help='message size in bytes (default 8)')
    ap.add_argument('--iters', type=int, default=5000, help='ping-pong iterations (default 5000)')
    ap.add_argument('--keep', help='keep the callgrind outputs in this directory')
    ap.add_argument('--compare', action='store_true',
                    help='also count MPICH and Open MPI (latbw -s), all three alike')
    a = ap.parse_args()
    if not shutil.which('valgrind'):
        sys.exit('budget.py: valgrind is not installed')
    prefix = os.path.abspath(a.ferry)
    outdir = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix='ferry-budget.')
    os.makedirs(outdir, exist_ok=True)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'latbw.c')
    exe = os.path.join(outdir, 'latbw')
    subprocess.run([os.path.join(prefix, 'bin', 'mpicc'), '-O2', '-o', exe, src], check=True)
    sz = ['-m', str(a.size), '-M', str(a.size), '-i', str(a.iters)]

    lat_files = run(prefix, exe, sz + ['-t', 'lat'], outdir, 'lat', cache_sim=True)
    lat = [parse(f) for f in lat_files]
    bw = [parse(f) for f in run(prefix, exe, sz + ['-t', 'bw'], outdir, 'bw')]

    print('# instructions per message of %d bytes between 2 ranks (callgrind, bench/budget.py)' %
          a.size)
    print('%-58s %8s %8s' % ('piece', 'rank 0', 'rank 1'))
    rows = []

    def row(label, values):
        rows.append((label, values))
        print('%-58s %8s %8s' % (label, *('%.0f' % v if v else '-' for v in values)))

    def idle(i, c):
        busy = 'shm_progress_busy'
        n_idle = c['MPID_Progress_test'] - c[busy]
        return (i.get('MPID_Progress_test', 0) - i.get(busy, 0)) / n_idle if n_idle > 0 else 0.0

    row('MPI_Send (ping-pong, whole call)',
        [per_call(i, c, 'PMPI_Send') for i, c in lat])
    row('MPI_Recv less its waiting: Irecv + finishing the request',
        [per_call(i, c, 'irecv') + per_call(i, c, 'MPIR_Request_finish') for i, c in lat])
    row('the delivering poll: shm busy path + the other methods',
        [per_call(i, c, 'shm_progress_busy') + idle(i, c) for i, c in lat])
    row('  of which the core: MPIDU_am_dispatch (matching, copy, completion)',
        [per_call(i, c, 'MPIDU_am_dispatch') for i, c in lat])
    row('an idle poll (MPID_Progress_test, nothing arrived)', [idle(i, c) for i, c in lat])
    row('  of which shm', [
        (i.get('MPIDI_SHM_progress', 0) - i.get('shm_progress_busy', 0)) /
        (c['MPIDI_SHM_progress'] - c['shm_progress_busy'])
        if c['MPIDI_SHM_progress'] > c['shm_progress_busy'] else 0.0 for i, c in lat])
    row('window of 64: MPI_Isend per message', [per_call(i, c, 'PMPI_Isend') for i, c in bw])
    row('window of 64: MPI_Irecv per message', [per_call(i, c, 'PMPI_Irecv') for i, c in bw])
    row('window of 64: MPI_Waitall per request, less its waiting', [
        (per_call(i, c, 'check_array') + per_call(i, c, 'finish_array')) * c['check_array'] /
        max(1, c['PMPI_Isend'] + c['PMPI_Irecv']) for i, c in bw])
    # Data cache misses of callgrind's model (one process's caches: a line the other rank wrote
    # is not a miss to it, so the lines that cross between cores are counted in doc/methods/shm.md
    # by hand).
    for label, ev in (('L1 data misses per message: MPI_Send + MPI_Recv, whole calls',
                       ('D1mr', 'D1mw')),
                      ('last-level data misses per message: the same', ('DLmr', 'DLmw'))):
        vals = []
        for f, (_, c) in zip(lat_files, lat):
            i, _ = parse(f, ev)
            vals.append((i.get('PMPI_Send', 0) + i.get('PMPI_Recv', 0)) / max(1, c['PMPI_Send']))
        print('%-58s %8s %8s' % (label, *('%.2f' % v for v in vals)))
    if a.compare:
        compare(a, prefix, src, outdir)
    if a.keep:
        print('# callgrind outputs in %s' % outdir)
    else:
        shutil.rmtree(outdir, ignore_errors=True)


if __name__ == '__main__':
    main()
