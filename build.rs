//! Generates the gRPC code of every service from proto/ with protox (a pure-Rust
//! protobuf compiler, so no protoc is needed) and tonic-prost-build.

use std::path::PathBuf;

const PROTOS: &[&str] = &[
    "deckhand/handops/v1/handops.proto",
    "deckhand/rummikub/v1/rummikub.proto",
    "deckhand/mahjong/v1/mahjong.proto",
    "deckhand/preferans/v1/preferans.proto",
    "deckhand/preferans/v1/coordinator.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let files: Vec<PathBuf> = PROTOS
        .iter()
        .map(|p| PathBuf::from("proto").join(p))
        .collect();
    let descriptors = protox::compile(&files, ["proto"])?;

    // The encoded descriptor set feeds server reflection.
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let bytes = prost::Message::encode_to_vec(&descriptors);
    std::fs::write(out_dir.join("deckhand_descriptor.bin"), bytes)?;

    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
