//! Prices of curve25519-dalek 2.0.0's ristretto255 operations, timed as costbook's Python harness
//! times its own (sage/costbook/harness.py): every operation cycles through a pool of operands, each
//! sample is a batch of calls long enough for the clock not to matter, the samples of all operations
//! are taken in interleaved rounds with one untimed call before each batch, and the clock is the
//! process's CPU time.
//!
//! Usage: costbook-dalek-bench SAMPLES MIN_BATCH_SECONDS WARMUP_SECONDS
//! Prints one JSON object: {"library": ..., "results": {key: {"batch": n, "per_op": [seconds, ...]}}}.
//! `costbook measure-dalek` summarises the samples and writes the measurement file.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::hint::black_box;

/// Distinct operands each operation cycles through (as the Python benchmarks do): one fixed scalar
/// would keep the same table entries in cache.
const POOL: usize = 32;

fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

struct Op {
    key: &'static str,
    run: Box<dyn FnMut(usize)>,
    batch: usize,
    per_op: Vec<f64>,
}

fn calibrate(op: &mut Op, min_batch_seconds: f64) {
    let mut batch = 1usize;
    loop {
        let t0 = cpu_seconds();
        for i in 0..batch {
            (op.run)(i % POOL);
        }
        if cpu_seconds() - t0 >= min_batch_seconds || batch >= 1 << 24 {
            op.batch = batch;
            return;
        }
        batch *= 2;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: {} SAMPLES MIN_BATCH_SECONDS WARMUP_SECONDS", args[0]);
        std::process::exit(2);
    }
    let samples: usize = args[1].parse().expect("SAMPLES: a positive integer");
    let min_batch: f64 = args[2].parse().expect("MIN_BATCH_SECONDS: a number");
    let warmup: f64 = args[3].parse().expect("WARMUP_SECONDS: a number");
    assert!(samples >= 1, "SAMPLES must be at least 1");

    // operands from a fixed seed: the same run after run
    let mut rng = StdRng::seed_from_u64(0x636f7374626f6f6b);
    let ks: Vec<Scalar> = (0..POOL).map(|_| Scalar::random(&mut rng)).collect();
    let ps: Vec<RistrettoPoint> = (0..POOL).map(|_| RistrettoPoint::random(&mut rng)).collect();
    let cs: Vec<CompressedRistretto> = ps.iter().map(|p| p.compress()).collect();
    let us: Vec<[u8; 64]> = (0..POOL)
        .map(|_| {
            let mut b = [0u8; 64];
            rand::RngCore::fill_bytes(&mut rng, &mut b);
            b
        })
        .collect();

    // the operations the punch card's counts name (keys.py), as PunchCard's crypto.rs calls them
    let op = |key: &'static str, run: Box<dyn FnMut(usize)>| Op { key, run, batch: 1, per_op: vec![] };
    let (ks1, ps1) = (ks.clone(), ps.clone());
    let ks2 = ks.clone();
    let ks3 = ks.clone();
    let mut ops = vec![
        // Point * Scalar: variable-base multiplication
        op("ristretto255/mul", Box::new(move |i| { black_box(black_box(ps1[i]) * black_box(ks1[i])); })),
        // &Scalar * &RISTRETTO_BASEPOINT_TABLE: the fixed-base table
        op("ristretto255/mul_base", Box::new(move |i| { black_box(&black_box(ks2[i]) * &RISTRETTO_BASEPOINT_TABLE); })),
        // compress: one inverse square root
        op("ristretto255/encode", Box::new(move |i| { black_box(black_box(ps[i]).compress()); })),
        // decompress, with its validity checks
        op("ristretto255/decode", Box::new(move |i| { black_box(black_box(cs[i]).decompress()); })),
        // the RFC 9496 one-way map of 64 uniform bytes (hash_from_bytes after its SHA-512)
        op("ristretto255/from_hash", Box::new(move |i| { black_box(RistrettoPoint::from_uniform_bytes(black_box(&us[i]))); })),
        // Scalar::invert: Montgomery addition chain mod l
        op("ristretto255/scalar_inv", Box::new(move |i| { black_box(black_box(ks3[i]).invert()); })),
    ];

    for o in ops.iter_mut() {
        let t_end = cpu_seconds() + warmup;
        (o.run)(0);
        let mut i = 1;
        while cpu_seconds() < t_end {
            (o.run)(i % POOL);
            i += 1;
        }
        calibrate(o, min_batch);
    }
    for _ in 0..samples {
        for o in ops.iter_mut() {
            (o.run)(0); // untimed: the previous operation may have left the caches cold for this one
            let t0 = cpu_seconds();
            for i in 0..o.batch {
                (o.run)(i % POOL);
            }
            let dt = cpu_seconds() - t0;
            o.per_op.push(dt / o.batch as f64);
        }
    }

    let results: Vec<String> = ops
        .iter()
        .map(|o| {
            let xs: Vec<String> = o.per_op.iter().map(|x| format!("{:e}", x)).collect();
            format!("\"{}\": {{\"batch\": {}, \"per_op\": [{}]}}", o.key, o.batch, xs.join(", "))
        })
        .collect();
    println!(
        "{{\"library\": \"curve25519-dalek 2.0.0 (u64_backend)\", \"pool\": {}, \"results\": {{{}}}}}",
        POOL,
        results.join(", ")
    );
}
