"""exactvmaf.compare(..., client=...): the encodes scored as Dask tasks.

Three steps, each one definition held once:
1. `exactvmaf compare --plan` checks the files, the grouping and the options
   and names the score (the first model's name) before any task is sent.
2. Each encode against the reference is a job of the batch runner
   (batch.plan, batch.compute): the tool's run on a worker, long encodes cut
   into shards and merged exactly, a job the shards cannot rebuild computed
   whole.
3. Their pooled scores go to a CSV that `exactvmaf compare --scores` reads in
   place of scoring: the ladders, the bitrates (read from the containers
   there, as a scoring run reads them) and every output are the tool's.
So the JSON, CSV and page equal a single-process compare's, but for the
command line the page quotes.
"""
import csv
import io
import math
import os
import tempfile
import uuid

from . import _cli
from . import batch
from .errors import Error


class _Pair:
    """One encode against the reference, as batch.compute takes a job."""

    def __init__(self, index, ref, encode, models, features, options):
        self.id = 'encode%d' % index
        self.name = encode
        # The workers' working folder may not be ours.
        self.reference = os.path.abspath(ref)
        self.distorted = os.path.abspath(encode)
        self.model_specs, self.feature_specs, self.options = models, features, options


def compare_on_dask(client, ref, encodes, group_by, models, features, backend, threads, gpu,
                    report, csv_path, scores, shard_frames, options):
    cli = _cli.cli_path()
    ref = os.fspath(ref)
    encodes = [os.fspath(e) for e in encodes]
    plan = _cli.compare_plan(ref, encodes, group_by, models, options)
    metric = plan['metric']
    opts = batch.tool_options(cli, options.items())
    if opts.get('subsample', 1) > 1:
        # The tool's JSON lists the computed frames only, not the count a
        # scoring compare records.
        raise Error('compare on Dask does not take subsample (compare without client= does)')
    pairs = [_Pair(i, ref, e, models, features, opts) for i, e in enumerate(encodes)]
    tag = uuid.uuid4().hex      # keys of this call's tasks, apart from any other's
    todo = [(p, tag, batch.plan(p, shard_frames, batch.estimate_frames(p) if shard_frames
                                else None)) for p in pairs]
    got, failed = {}, {}
    for p, r, _, err in batch.compute(client, todo, backend, threads, gpu):
        if err is not None:
            failed[p.id] = err
            continue
        pooled = r.pooled.get(metric, {})
        if 'mean' not in pooled:
            failed[p.id] = 'no %s score in its result' % metric
            continue
        got[p.id] = (pooled['mean'], pooled.get('harmonic_mean'), len(r.frames))
    if failed:
        first = next(p for p in pairs if p.id in failed)
        raise Error('compare on Dask: %d of %d encodes failed; nothing is written. %s: %s'
                    % (len(failed), len(pairs), first.name, failed[first.id]))

    text = io.StringIO()
    w = csv.writer(text, lineterminator='\n')
    w.writerow(['file', 'vmaf', 'vmaf_harmonic_mean', 'frames'])
    for p in pairs:
        mean, hmean, frames = got[p.id]
        # repr: the shortest text that reads back as the same double; no
        # harmonic mean where it is not finite (the tool's JSON has null).
        w.writerow([p.name, repr(mean),
                    repr(hmean) if hmean is not None and math.isfinite(hmean) else '', frames])
    with tempfile.TemporaryDirectory(prefix='exactvmaf-') as tmp:
        path = os.fspath(scores) if scores is not None else os.path.join(tmp, 'scores.csv')
        batch.write_atomic(path, text.getvalue())
        return _cli.compare_files(ref, encodes, group_by, models, features, backend, threads,
                                  gpu, report, csv_path, None, options, scores=path)
