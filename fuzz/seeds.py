#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into fuzz/corpus/<target>/:
valid and near-valid texts for the parsers, and protobuf-encoded requests
(first byte: which RPC of the service) for the request targets. Run from
anywhere; the seeds are committed, rerun only to change them."""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, value):
    """Encodes one field: int -> varint, bytes/str -> length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


def fixed64(number, value):
    return varint(number << 3 | 1) + struct.pack("<Q", value)


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


TEXTS = {
    "handops_text": ["33344456", "34556677778888999TTT", "BR", "10JQKA", "2222", "3x",
                     "\x00\x00\x00\x00\x00\x00\x00\x00", "33 44 55"],
    "mahjong_text": ["123m456p789s11122z", "1112345678999m", "0m0p0s", "19m19p19s1234567z",
                     "5", "m", "11111m"],
    "rummikub_text": ["k1 k2 k3 J r5 b5 o5", "b13,o7", "J j", "k0", "q14", "k1 k1 k1"],
    "preferans_hands": ["AQJ8.KT8.KJ.9", "SA", "HT", "6S", "7NT", "misere", "....", "A.A.A.A.A"],
    "preferans_view": ["\x00T987.T987.*98.*Q#J", "\x41AKQ.J.*7.*8", "\xffT987.T987.*98.*Q#J",
                       "\x10**A...."],
    "preferans_problems": [
        "deal test\nnorth A98.AT98..T87\neast QT7.KQJ.A.KQJ\nwest KJ.7.KQJT9.A9\n"
        "contract 6S\ndeclarer E\nlead W\n",
        "# comment\n\ndeal x\nnorth AKQJ.T987..\n",
        "contract 6S\n",
    ],
}


def hand_ops():
    hand = lambda packed: fixed64(1, packed)
    text = lambda t: field(2, t)
    pair = field(1, hand(0x222)) + field(2, text("345"))
    yield "contains", b"\x00" + field(1, pair) + field(1, field(1, text("3334")) + field(2, text("44")))
    packed = field(1, struct.pack("<QQ", 0x222, 1)) + field(2, struct.pack("<QQ", 0x22, 2))
    yield "contains_packed", b"\x00" + field(2, packed)
    yield "remove", b"\x01" + field(1, pair)
    yield "classify", b"\x02" + field(1, text("33344456")) + field(1, hand(0x4))
    yield "legal_moves", b"\x03" + field(1, text("34556677778888999TTT")) + field(2, text("3334"))


def mahjong():
    yield "check_win", b"\x00" + field(1, field(1, "11122233344455m"))
    yield "shanten", b"\x01" + field(1, field(2, bytes([1] * 13 + [0] * 21)))
    yield "waits", b"\x02" + field(1, field(1, "1112345678999m"))
    riichi = (field(1, "123m456p789s11222z") + field(2, "9s") + field(4, 1) + field(5, 1)
              + field(10, "1z") + field(11, "8s"))
    called = (field(1, "234m0p0p56p11z") + field(2, "1z") + field(3, "pon:555m")
              + field(3, "ankan:7777s") + field(8, 3) + field(18, 2)
              + field(20, field(1, 0) + field(5, 20)))
    yield "score", b"\x03" + field(1, riichi) + field(1, called)


def rummikub():
    item = b"".join(field(1, t) for t in "k1 k2 k3 J r5 b5 o5".split())
    rules = field(1, 9) + field(4, 1)
    yield "arrange", b"\x00" + item
    yield "arrange_rules", b"\x00" + item + field(2, rules)
    yield "arrange_batch", b"\x01" + field(1, item) + field(1, item + field(2, rules))
    table = b"".join(field(1, t) for t in "k1 k2 k3".split())
    rack = b"".join(field(2, t) for t in "k4 r7 b7 o7 J".split())
    yield "best_move", b"\x02" + table + rack + field(4, 2) + field(5, 1)


def preferans():
    deal = (field(1, "A98.AT98..T87") + field(2, "QT7.KQJ.A.KQJ") + field(3, "KJ.7.KQJT9.A9")
            + field(4, "6S") + field(5, 2) + field(6, 3))
    yield "solve_deal", b"\x00" + deal
    view = field(1, 1) + field(7, "T987.T987.*98.*Q#J") + field(4, "misere") + field(5, 1)
    yield "solve_layouts", b"\x01" + field(1, view) + field(2, 5) + field(3, 6)


def main():
    for target, texts in TEXTS.items():
        for i, t in enumerate(texts):
            write(target, f"seed{i}", t)
    for target, seeds in [("handops_requests", hand_ops()), ("mahjong_requests", mahjong()),
                          ("rummikub_requests", rummikub()), ("preferans_requests", preferans())]:
        for name, data in seeds:
            write(target, name, data)


if __name__ == "__main__":
    main()
