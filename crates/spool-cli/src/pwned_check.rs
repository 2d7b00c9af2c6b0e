//! `spool pwned check`: asks an index about one password or hash (typed,
//! given, or read without echo) or about a batch of them.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use spool_pwned::lookup::check::{check_batch, parse_hash, BatchError};
use spool_pwned::{Answer, AnyIndex};

/// `spool pwned check`: one hash or password, or a batch, against an index.
pub fn run(
    index: &PathBuf,
    password: Option<String>,
    hash: Option<String>,
    batch: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let index = AnyIndex::open(index)?;
    let kind = index.kind();
    if let Some(batch) = batch {
        let reader: Box<dyn BufRead> = if batch.as_os_str() == "-" {
            Box::new(io::stdin().lock())
        } else {
            Box::new(io::BufReader::new(
                std::fs::File::open(&batch).with_context(|| batch.display().to_string())?,
            ))
        };
        let mut out = io::BufWriter::new(io::stdout().lock());
        let any = check_batch(
            reader,
            kind,
            |keys| index.check_many(keys).collect(),
            &mut out,
        )
        .map_err(|e| match e {
            BatchError::Io(e) => anyhow::Error::new(e),
            BatchError::NotAHash { line, fault } => {
                anyhow::Error::new(fault).context(format!("{}:{line}", batch.display()))
            }
            BatchError::Lookup { line, fault } => anyhow::Error::new(fault).context(format!(
                "{}: looking up line {line} of {}",
                index.path(),
                batch.display()
            )),
        })?;
        out.flush()?;
        return Ok(if any {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let key = match (hash, password) {
        (Some(hex), _) => parse_hash(&hex, kind)?,
        (None, Some(pw)) => kind.hash_password(&pw),
        (None, None) => kind.hash_password(&read_password()?),
    };
    let answer = index
        .check(&key)
        .with_context(|| index.path().to_string())?;
    match answer {
        Answer::Count(n) => println!("pwned: seen {n} times"),
        Answer::Present => println!(
            "probably pwned (a filter index: no count; about 1 in 65,536 passwords not in it is reported so)"
        ),
        Answer::Absent => println!("not found"),
    }
    Ok(if answer.found() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn read_password() -> anyhow::Result<String> {
    if io::stdin().is_terminal() {
        Ok(rpassword::prompt_password("Password: ")?)
    } else {
        let mut line = String::new();
        let read = io::stdin()
            .lock()
            .read_line(&mut line)
            .context("standard input")?;
        // Nothing at all is a mistake (a missing pipe or file), not the
        // empty password; an empty line is the empty password.
        anyhow::ensure!(
            read > 0,
            "no password to check: standard input is empty (pipe the password in, \
             or use --password or --hash)"
        );
        Ok(line.trim_end_matches(['\r', '\n']).to_string())
    }
}
