//! The JSON-lines protocol of docs/protocol.md: its lines ([`wire`], used
//! by both sides) and a server for any decoder ([`serve`](mod@serve)). The client,
//! which runs adapters, is [`crate::decoders::process`].

pub mod serve;
pub mod wire;

pub use serve::serve;
