"""The fault series: a population of games played through the API, by reply mail
and by bots while processes die at random moments (SIGKILL of gunicorn, Celery
workers mid-delivery, the scheduler; PostgreSQL and Redis restarted; the SMTP server
away; two schedulers at once; the clock moved past deadlines). Then everything is
started again and drained, and nothing acknowledged is lost, no notice is missing
or sent twice, every chain and read model holds, every game ends. The seed
(PBEM_FAULT_SEED) draws the games and the faults; it is printed with the figures."""

from __future__ import annotations

import random
import threading
import time

import pytest
from checks import check_games, check_mail, check_moves, check_rebuild, drain
from faults import Injector, plan, restore
from harness import need
from players import Player, Tally, create, population
from stack import Stack


@pytest.mark.slow  # a whole topology started, shaken and drained: a minute or more
@pytest.mark.parametrize("topology", ["postgresql", "sqlite"])
def test_nothing_acknowledged_is_lost_and_nothing_is_sent_twice(
    topology, series, tmp_path, record_property, pytestconfig
):
    need(topology)
    seed = series.seed(pytestconfig)
    print(f"fault series on {topology}: seed {seed} (PBEM_FAULT_SEED={seed} repeats it)")
    rng = random.Random(f"{seed}/{topology}")
    games = population(rng, series.games)
    faults = plan(rng, topology, series.faults)
    started = time.monotonic()
    stack = Stack(topology, tmp_path)
    try:
        for game in games:
            create(stack, game)
        tally, stop = Tally(), threading.Event()
        players = [Player(stack, g, tally, rng.getrandbits(32), stop) for g in games]
        for player in players:
            player.start()
        injector = Injector(stack, faults, rng.getrandbits(32))
        injector.start()
        injector.join(timeout=1200)
        assert not injector.is_alive(), f"seed {seed}: the faults did not end in 20 minutes"
        assert injector.error is None, f"seed {seed}: injecting a fault: {injector.error!r}"
        shaken = time.monotonic()
        restore(stack, injector.done)
        drain(stack)
        recovered = time.monotonic() - shaken
        stop.set()
        for player in players:
            player.join(timeout=120)
            assert player.error is None, f"seed {seed}: {player.name}: {player.error!r}"
        stack.processes.stop_all()
        stack.parts.database.engine.dispose()  # no connection left from before a restart
        problems = check_moves(stack, tally)
        problems += [f"a reply by mail bounced: {what}" for what in tally.bounced]
        mail_problems, mails = check_mail(stack, games)
        problems += mail_problems + check_games(stack, games) + check_rebuild(stack)
        via = [a.via for a in tally.acks]
        outcomes = stack.query("SELECT outcome, count(*) FROM inbound GROUP BY outcome")
        figures = (
            f"{topology} seed {seed}: {len(games)} games, moves acknowledged "
            f"{via.count('api')} by API + {via.count('mail')} by mail "
            f"({tally.refused} refused, {tally.retried} resent, {tally.mails_piped} mails piped, "
            f"exits {dict(sorted(tally.inbound_exits.items()))}, "
            f"outcomes {dict(sorted((str(o), n) for o, n in outcomes))}); "
            f"faults {injector.done.counts.total()} {dict(sorted(injector.done.counts.items()))}"
            f" ({injector.done.mid_delivery} worker kills mid-delivery, "
            f"{stack.processes.started} process starts, died unkilled: {injector.done.died or 0}); "
            f"mails: {mails}; recovered in {recovered:.0f} s; "
            f"whole run {time.monotonic() - started:.0f} s; problems {len(problems)}"
        )
        print(figures)
        record_property("fault figures", figures)
        (tmp_path / "problems.txt").write_text("\n".join([figures, *problems]) + "\n")
        assert not problems, f"seed {seed} on {topology}:\n" + "\n".join(problems)
    finally:
        stop_players = locals().get("stop")
        if stop_players is not None:
            stop_players.set()
        stack.down()
