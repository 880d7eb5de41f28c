//! Test helpers: a minimal JSON reader for oracles.json and the oracle problems.
#![allow(dead_code)]

use std::collections::BTreeMap;

use deckhand_preferans::{Contract, DeclarerView, Seat, Strain, Suit};

#[derive(Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(m) => m.get(key).unwrap_or_else(|| panic!("missing key {key}")),
            _ => panic!("not an object looking up {key}"),
        }
    }
    pub fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            _ => panic!("not an array"),
        }
    }
    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => panic!("not a string"),
        }
    }
    pub fn num(&self) -> u32 {
        match self {
            Json::Num(n) => *n as u32,
            _ => panic!("not a number"),
        }
    }
    pub fn bool(&self) -> bool {
        match self {
            Json::Bool(b) => *b,
            _ => panic!("not a bool"),
        }
    }
}

pub fn parse_json(text: &str) -> Json {
    let bytes = text.as_bytes();
    let mut i = 0;
    value(bytes, &mut i)
}

fn ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && (b[*i] as char).is_whitespace() {
        *i += 1;
    }
}

fn value(b: &[u8], i: &mut usize) -> Json {
    ws(b, i);
    match b[*i] {
        b'{' => {
            *i += 1;
            let mut m = BTreeMap::new();
            loop {
                ws(b, i);
                if b[*i] == b'}' {
                    *i += 1;
                    return Json::Obj(m);
                }
                let Json::Str(k) = value(b, i) else {
                    panic!("key")
                };
                ws(b, i);
                assert_eq!(b[*i], b':');
                *i += 1;
                let v = value(b, i);
                m.insert(k, v);
                ws(b, i);
                if b[*i] == b',' {
                    *i += 1;
                }
            }
        }
        b'[' => {
            *i += 1;
            let mut a = Vec::new();
            loop {
                ws(b, i);
                if b[*i] == b']' {
                    *i += 1;
                    return Json::Arr(a);
                }
                a.push(value(b, i));
                ws(b, i);
                if b[*i] == b',' {
                    *i += 1;
                }
            }
        }
        b'"' => {
            *i += 1;
            let start = *i;
            while b[*i] != b'"' {
                *i += 1;
            }
            let s = String::from_utf8(b[start..*i].to_vec()).unwrap();
            *i += 1;
            Json::Str(s)
        }
        b't' => {
            *i += 4;
            Json::Bool(true)
        }
        b'f' => {
            *i += 5;
            Json::Bool(false)
        }
        b'n' => {
            *i += 4;
            Json::Null
        }
        _ => {
            let start = *i;
            while *i < b.len() && matches!(b[*i], b'0'..=b'9' | b'-' | b'.' | b'e' | b'E' | b'+') {
                *i += 1;
            }
            Json::Num(std::str::from_utf8(&b[start..*i]).unwrap().parse().unwrap())
        }
    }
}

pub fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn oracles() -> Json {
    parse_json(&data("oracles.json"))
}

/// Oracle trump code: 0..3 suits S H D C, 4 no trumps, 5 misère.
pub fn strain_code(code: u32) -> Strain {
    match code {
        0..=3 => Strain::Trump(Suit::ALL[code as usize]),
        4 => Strain::NoTrump,
        _ => Strain::Misere,
    }
}

/// One all-foe oracle problem: name, view, histograms (first 20,000 and all).
pub struct FoeOracle {
    pub name: String,
    pub view: DeclarerView,
    pub first_20000: [u32; 11],
    pub all: [u32; 11],
}

fn hist(j: &Json) -> [u32; 11] {
    let mut h = [0; 11];
    for (slot, v) in h.iter_mut().zip(j.arr()) {
        *slot = v.num();
    }
    h
}

pub fn foe_oracles() -> Vec<FoeOracle> {
    let o = oracles();
    o.get("solve_all_foe")
        .get("problems")
        .arr()
        .iter()
        .map(|p| {
            let strain = strain_code(p.get("trump").num());
            let contract = Contract {
                level: None,
                strain,
            };
            // first: 0 = North, 1 = East, 2 = West; the declarer is North.
            let leader = Seat::from_index(p.get("first").num() as usize).unwrap();
            let view = DeclarerView::from_notation(p.get("deal").str(), Seat::N, contract, leader)
                .unwrap();
            FoeOracle {
                name: p.get("name").str().to_string(),
                view,
                first_20000: hist(p.get("first_20000")),
                all: hist(p.get("all_184756")),
            }
        })
        .collect()
}
