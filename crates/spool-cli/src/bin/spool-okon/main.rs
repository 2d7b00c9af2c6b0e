//! `spool-okon`: okon-cli's command-line contract over a spool pwned index,
//! so programs that integrate okon (such as KeePassXC's
//! `keepassxc-cli analyze --hibp FILE --okon BINARY`) can use a spool index
//! unchanged.
//!
//! `spool-okon --path INDEX --hash SHA1HEX` prints `1` and exits 1 if the
//! hash is in the index, prints `0` and exits 0 if not, and exits 2 if the
//! index cannot be loaded, the arguments are wrong, or the block the answer
//! rests on fails its checksum (a damaged index: the message says so,
//! rather than answering 0 or 1 from damaged bytes).

use std::process::ExitCode;

mod args;

use args::{parse_okon_args, OkonArgError, OkonCommand, OKON_USAGE};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, hash) = match parse_okon_args(&args) {
        Ok(OkonCommand::Check { path, hash }) => (path, hash),
        Ok(OkonCommand::Help) => {
            println!(
                "{OKON_USAGE}\nprints 1 (exit 1) if found, 0 (exit 0) if not; exit 2 on error"
            );
            return ExitCode::SUCCESS;
        }
        Err(OkonArgError::Usage) => {
            eprintln!("spool-okon: {OKON_USAGE}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("spool-okon: {e}");
            return ExitCode::from(2);
        }
    };
    let index = match spool_pwned::AnyIndex::open(&path) {
        Ok(index) => index,
        Err(e) => {
            eprintln!("spool-okon: {e}");
            return ExitCode::from(2);
        }
    };
    let mut key = vec![0u8; index.kind().byte_len()];
    if spool_pwned::text::hex::decode(hash.trim().as_bytes(), &mut key).is_err() {
        eprintln!(
            "spool-okon: '{hash}' is not a {}-digit hex hash",
            index.kind().hex_len()
        );
        return ExitCode::from(2);
    }
    match index.check(&key).map(spool_pwned::Answer::found) {
        Ok(true) => {
            println!("1");
            ExitCode::from(1)
        }
        Ok(false) => {
            println!("0");
            ExitCode::SUCCESS
        }
        Err(damaged) => {
            eprintln!("spool-okon: {path}: {damaged}");
            ExitCode::from(2)
        }
    }
}
