#!/usr/bin/env python3
"""Generates tests/data/score_cases.tsv: random winning situations scored by
the Python `mahjong` package (PyPI), version 2.1.0, `HandCalculator`.

Development time only: `pip install mahjong==2.1.0`, then
    python3 engines/mahjong/tests/data/gen_score_cases.py > engines/mahjong/tests/data/score_cases.tsv

Rule options passed to the package are, unless the case lists others, the engine's defaults (`Rules` in
src/score/input.rs): open tanyao on, red fives on, double yakuman on, kazoe
capped at one yakuman, kiriage off, open pinfu-shaped ron 30 fu, pinfu tsumo
20 fu.

One case per line, tab-separated:
    hand  win  melds  flags  seat  round  dora  ura  honba  sticks  rules  ->  expected  yaku
`melds`, `flags`, `dora`, `ura` are comma lists or `-`; flags are tsumo,
riichi, double, ippatsu, haitei, houtei, rinshan, chankan, tenhou, chiihou;
`rules` lists departures from the defaults (one case in four): no_open_tanyao,
kiriage, single_yakuman, kazoe_sanbaiman, open_pinfu_20, no_red_fives.
`expected` is `noyaku`, or `han fu ron tsumo_dealer tsumo_others total received`
(payments before honba; `received` includes honba and sticks) and the
yakuman count, space separated. `yaku` lists the package's yaku names.
"""

import random
import statistics
import sys
import time

from mahjong.constants import EAST
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.meld import Meld

# Wall time of each estimate_hand_value call; the median goes to stderr.
CALL_SECONDS = []
RULE_VARIANTS = ["no_open_tanyao", "kiriage", "single_yakuman", "kazoe_sanbaiman", "open_pinfu_20",
                 "no_red_fives"]
SEED = 20261201
CASES = 2500
WINDS = "ESWN"
SUITS = "mpsz"
ORPHANS = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]
GREEN = [19, 20, 21, 23, 25, 32]


def tile_text(t):
    return f"{t % 9 + 1}{SUITS[t // 9]}"


def tiles_text(tiles, reds):
    """MPSZ text of 34-ids; `reds` is the set of suits whose red five is among them."""
    out = []
    for s in range(4):
        digits = []
        red = s in reds
        for t in sorted(x for x in tiles if x // 9 == s):
            if red and t % 9 == 4:
                digits.append("0")
                red = False
            else:
                digits.append(str(t % 9 + 1))
        if digits:
            out.append("".join(digits) + SUITS[s])
    return "".join(out)


class Wall:
    """Hands out 136-format copies; copy 0 of a five is the red one."""

    def __init__(self):
        self.used = [0] * 34

    def take(self, t, red=False):
        # Copy 0 of a numbered five is red: take it only when asked.
        is_five = t < 27 and t % 9 == 4
        for copy in range(4):
            if self.used[t] & (1 << copy):
                continue
            if is_five and (copy == 0) != red:
                continue
            self.used[t] |= 1 << copy
            return 4 * t + copy
        raise ValueError("no copy left")


def random_group(rng, pool):
    """('seq', first) or ('trip', tile) from tiles in `pool`."""
    seq_starts = [t for t in pool if t < 27 and t % 9 <= 6 and t + 1 in pool and t + 2 in pool]
    if seq_starts and rng.random() < 0.55:
        return ("seq", rng.choice(seq_starts))
    return ("trip", rng.choice(pool))


def pool_for(rng, style):
    if style == "one_suit":
        s = rng.randrange(3)
        return list(range(9 * s, 9 * s + 9)) + (list(range(27, 34)) if rng.random() < 0.5 else [])
    if style == "honours":
        return list(range(27, 34)) + ([0, 8, 9, 17, 18, 26] if rng.random() < 0.6 else [])
    if style == "terminals":
        return [0, 8, 9, 17, 18, 26] + ([1, 7, 10, 16, 19, 25] if rng.random() < 0.5 else [])
    if style == "green":
        return GREEN
    if style == "simples":
        return [t for t in range(27) if t % 9 not in (0, 8)]
    return list(range(34))


def standard_situation(rng, patterned=False):
    if patterned:
        groups, pair = patterned_situation(rng)
    else:
        groups, pair = random_groups(rng)
    counts = [0] * 34
    counts[pair] += 2
    for kind, t in groups:
        if kind == "seq":
            for k in range(3):
                counts[t + k] += 1
        else:
            counts[t] += 3
    if max(counts) > 4:
        return None
    return call_some(rng, groups, pair, counts)


def random_groups(rng):
    style = rng.choices(
        ["any", "one_suit", "honours", "terminals", "green", "simples"],
        [50, 15, 10, 6, 4, 15],
    )[0]
    pool = pool_for(rng, style)
    pair = rng.choice(pool)
    return [random_group(rng, pool) for _ in range(4)], pair


def call_some(rng, groups, pair, counts):
    # Which groups are called, and how.
    open_style = rng.random()
    melds = []
    concealed = [pair, pair]
    for kind, t in groups:
        called = open_style < 0.45 and rng.random() < 0.5
        if kind == "seq":
            if called:
                melds.append(("chi", [t, t + 1, t + 2]))
            else:
                concealed += [t, t + 1, t + 2]
        else:
            r = rng.random()
            if r < 0.12 and counts[t] == 3:
                counts[t] += 1
                melds.append(("ankan", [t] * 4))
            elif called and r < 0.3 and counts[t] == 3:
                counts[t] += 1
                melds.append((rng.choice(["kan", "kakan"]), [t] * 4))
            elif called:
                melds.append(("pon", [t] * 3))
            else:
                concealed += [t] * 3
    return concealed, melds


def seven_pairs_situation(rng):
    style = rng.choice(["any", "any", "one_suit", "honours", "simples", "terminals"])
    pool = pool_for(rng, style)
    if len(pool) < 7:
        pool = list(range(34))
    pairs = rng.sample(pool, 7)
    return [t for t in pairs for _ in range(2)], []


def nine_gates_situation(rng):
    s = 9 * rng.randrange(3)
    gates = [s] * 3 + list(range(s + 1, s + 8)) + [s + 8] * 3
    return gates + [s + rng.randrange(9)], []


def patterned_situation(rng):
    """Sanshoku, ittsu and outside-hand shapes, rare in uniform draws."""
    kind = rng.choice(["sanshoku", "ittsu", "outside"])
    if kind == "sanshoku":
        n = rng.randrange(7)
        groups = [("seq", n), ("seq", n + 9), ("seq", n + 18)]
    elif kind == "ittsu":
        s = 9 * rng.randrange(3)
        groups = [("seq", s), ("seq", s + 3), ("seq", s + 6)]
    else:
        outside = [("seq", 9 * k + d) for k in range(3) for d in (0, 6)] + [("trip", t) for t in ORPHANS]
        groups = [rng.choice(outside) for _ in range(3)]
    pool = ORPHANS if kind == "outside" else list(range(34))
    groups.append(random_group(rng, pool))
    return groups, rng.choice(pool)


def kokushi_situation(rng):
    return ORPHANS + [rng.choice(ORPHANS)], []


def situation(rng):
    r = rng.random()
    if r < 0.1:
        made = seven_pairs_situation(rng)
    elif r < 0.14:
        made = kokushi_situation(rng)
    elif r < 0.16:
        made = nine_gates_situation(rng)
    elif r < 0.24:
        made = standard_situation(rng, patterned=True)
    else:
        made = standard_situation(rng)
    if made is None:
        return None
    concealed, melds = made
    wall = Wall()
    reds = set()
    # Red fives: each suit's red five sits somewhere (hand or meld) half the time.
    all_tiles = concealed + [t for _, ts in melds for t in ts]
    for s in range(3):
        # With all four fives held, one of them is the red one.
        five = 9 * s + 4
        if all_tiles.count(five) == 4 or (five in all_tiles and rng.random() < 0.5):
            reds.add(s)
    hand136 = []
    red_left = set(reds)
    melds136 = []
    meld_texts = []
    for kind, ts in melds:
        m = []
        meld_reds = set()
        for t in ts:
            red = t < 27 and t % 9 == 4 and (t // 9) in red_left
            if red:
                red_left.discard(t // 9)
                meld_reds.add(t // 9)
            m.append(wall.take(t, red))
        melds136.append(m)
        meld_texts.append(f"{kind}:{tiles_text(ts, meld_reds)}")
    hand_reds = set()
    for t in concealed:
        red = t < 27 and t % 9 == 4 and (t // 9) in red_left
        if red:
            red_left.discard(t // 9)
            hand_reds.add(t // 9)
        hand136.append(wall.take(t, red))
    win = rng.choice(concealed)
    win136 = next(x for x in hand136 if x // 4 == win)

    closed = all(kind == "ankan" for kind, _ in melds)
    kans = sum(1 for kind, _ in melds if kind in ("kan", "ankan", "kakan"))
    flags = []
    tsumo = rng.random() < 0.45
    if tsumo:
        flags.append("tsumo")
    riichi = 0
    if closed and rng.random() < 0.5:
        riichi = 2 if rng.random() < 0.1 else 1
        flags.append("double" if riichi == 2 else "riichi")
        if rng.random() < 0.25:
            flags.append("ippatsu")
    seat = rng.randrange(4)
    round_ = rng.choice([0, 0, 1, 1, 2, 3])
    r = rng.random()
    if tsumo and kans and r < 0.3:
        flags.append("rinshan")
    elif tsumo and r < 0.08:
        flags.append("haitei")
    elif not tsumo and r < 0.06:
        flags.append("houtei")
    elif not tsumo and r < 0.09:
        flags.append("chankan")
    if tsumo and not melds and riichi == 0 and rng.random() < 0.03:
        flags.append("tenhou" if seat == 0 else "chiihou")

    def indicators(n):
        out = []
        for _ in range(n):
            free = [t for t in range(34) if bin(wall.used[t]).count("1") < 4]
            t = rng.choice(free)
            wall.take(t, False)
            out.append(t)
        return out

    try:
        dora = indicators(rng.choice([0, 1, 1, 1, 2]) + kans)
        ura = indicators(1 + kans) if riichi and rng.random() < 0.7 else []
    except (ValueError, IndexError):
        return None
    honba = rng.choice([0, 0, 0, 1, 2, 5])
    sticks = rng.choice([0, 0, 1, 2])

    # One case in four plays under non-default rule options.
    rules = []
    if rng.random() < 0.25:
        rules = [r for r in RULE_VARIANTS if rng.random() < 0.4]
    config = HandConfig(
        is_tsumo=tsumo,
        is_riichi=riichi >= 1,
        is_daburu_riichi=riichi == 2,
        is_ippatsu="ippatsu" in flags,
        is_rinshan="rinshan" in flags,
        is_chankan="chankan" in flags,
        is_haitei="haitei" in flags,
        is_houtei="houtei" in flags,
        is_tenhou="tenhou" in flags,
        is_chiihou="chiihou" in flags,
        player_wind=EAST + seat,
        round_wind=EAST + round_,
        tsumi_number=honba,
        kyoutaku_number=sticks,
        options=OptionalRules(
            has_open_tanyao="no_open_tanyao" not in rules,
            has_aka_dora="no_red_fives" not in rules,
            has_double_yakuman="single_yakuman" not in rules,
            kazoe_limit=HandConstants.KAZOE_SANBAIMAN if "kazoe_sanbaiman" in rules
            else HandConstants.KAZOE_LIMITED,
            kiriage="kiriage" in rules,
            fu_for_open_pinfu="open_pinfu_20" not in rules,
            fu_for_pinfu_tsumo=False,
        ),
    )
    py_melds = []
    for (kind, _), m in zip(melds, melds136):
        py_type = {"chi": Meld.CHI, "pon": Meld.PON, "kan": Meld.KAN, "ankan": Meld.KAN,
                   "kakan": Meld.SHOUMINKAN}[kind]
        py_melds.append(Meld(meld_type=py_type, tiles=m, opened=kind != "ankan"))
    all136 = hand136 + [x for m in melds136 for x in m]
    start = time.perf_counter()
    result = HandCalculator.estimate_hand_value(
        all136, win136, melds=py_melds,
        dora_indicators=indicator_ids(dora),
        ura_dora_indicators=indicator_ids(ura),
        config=config,
    )
    CALL_SECONDS.append(time.perf_counter() - start)
    if result.error and result.error != HandCalculator.ERR_NO_YAKU:
        return None
    fields = [
        tiles_text(concealed, hand_reds),
        tile_text(win),
        ",".join(meld_texts) or "-",
        ",".join(flags) or "-",
        WINDS[seat],
        WINDS[round_],
        ",".join(tile_text(t) for t in dora) or "-",
        ",".join(tile_text(t) for t in ura) or "-",
        str(honba),
        str(sticks),
        ",".join(rules) or "-",
        "->",
    ]
    if result.error == HandCalculator.ERR_NO_YAKU:
        fields += ["noyaku", "-"]
    else:
        c = result.cost
        dealer = seat == 0
        if not tsumo:
            ron, td, to = c["main"], 0, 0
        elif dealer:
            ron, td, to = 0, 0, c["main"]
        else:
            ron, td, to = 0, c["main"], c["additional"]
        total = ron + td + 2 * to if not dealer or not tsumo else 3 * to
        yakuman = sum(y.han_closed // 13 for y in result.yaku if y.is_yakuman)
        fields += [
            f"{result.han} {result.fu} {ron} {td} {to} {total} {c['total']} {yakuman}",
            ",".join(y.name for y in result.yaku),
        ]
    return "\t".join(fields)


def indicator_ids(tiles):
    # Indicators are never red; which copy does not matter to scoring.
    return [4 * t + 3 for t in tiles]


def main():
    rng = random.Random(SEED)
    print(__doc__.strip().replace("\n", "\n# ").join(["# ", ""]))
    written = 0
    while written < CASES:
        line = situation(rng)
        if line:
            print(line)
            written += 1
    sys.stdout.flush()
    print(
        f"HandCalculator.estimate_hand_value: median {statistics.median(CALL_SECONDS) * 1e6:.1f} us "
        f"over {len(CALL_SECONDS)} calls",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
