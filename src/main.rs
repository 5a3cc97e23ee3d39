//! The `hearth` command: parses the command line, starts logging, opens the database, binds, and
//! hands over to the library. Errors end here as one line on stderr and a non-zero status.

// Production code handles every error; tests may expect (clippy.toml allows it there).
#![deny(clippy::unwrap_used, clippy::expect_used)]

use std::process::ExitCode;

use clap::Parser;
use hearth::config::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    match cli.command {
        Command::Serve(args) => {
            let config = match args.into_config() {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("hearth: {e}");
                    return ExitCode::from(2);
                }
            };
            hearth::telemetry::init(config.log_format);
            report(serve(config))
        }
        Command::Backup(args) => {
            let dir = args.data_dir.resolve();
            match backup(dir, args.path.clone()) {
                Ok(size) => {
                    println!("wrote {} ({size} bytes)", args.path.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("hearth: backup failed: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Doctor(args) => {
            let config = match args.into_config() {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("hearth: {e}");
                    return ExitCode::from(2);
                }
            };
            let setup = hearth::doctor::Setup::of(&config);
            let findings = hearth::doctor::run(&setup, std::time::SystemTime::now());
            for finding in &findings {
                println!(
                    "{:<4}  {:<17}  {}",
                    finding.status.word(),
                    finding.check,
                    finding.message
                );
            }
            match hearth::doctor::worst(&findings) {
                hearth::doctor::Status::Fail => ExitCode::FAILURE,
                _ => ExitCode::SUCCESS,
            }
        }
        Command::Restore(args) => {
            let dir = args.data_dir.resolve();
            let stamp = hearth::backups::files::name_for(std::time::SystemTime::now());
            let stamp = stamp.trim_start_matches("hearth-").trim_end_matches(".db");
            match hearth::store::restore(&args.file, &dir, stamp) {
                Ok(done) => {
                    println!(
                        "restored {} into {} (schema {})",
                        args.file.display(),
                        done.database.display(),
                        done.schema
                    );
                    if let Some(aside) = done.kept_aside {
                        println!("the database it replaced is kept as {}", aside.display());
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("hearth: restore refused: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Remap(args) => match remap(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("hearth: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

/// `hearth remap`: the calendar engine on a file or stdin, the result streamed to stdout.
fn remap(args: &hearth::config::RemapArgs) -> Result<(), String> {
    use hearth::calendar::{
        CalendarConfig, CompiledConfig, CompiledMapping, Limits, Mapping, MergeError, MergeInput,
        RemapOptions,
    };
    use std::io::Write;

    // The server caps feeds at 32 MiB; here the owner remaps their own files, so allow 1 GiB.
    let limits = Limits {
        max_input_bytes: 1 << 30,
        ..Limits::default()
    };
    let config = match (&args.mapping, &args.config) {
        (Some(path), _) => {
            let shown = path.display();
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("--mapping {shown}: {e}"))?;
            let mapping: Mapping =
                serde_json::from_str(&text).map_err(|e| format!("--mapping {shown}: {e}"))?;
            CompiledConfig::from(
                CompiledMapping::compile(&mapping).map_err(|e| format!("mapping: {e}"))?,
            )
        }
        (None, Some(path)) => {
            let shown = path.display();
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("--config {shown}: {e}"))?;
            let mut json = serde_json::Deserializer::from_str(&text);
            let config: CalendarConfig = serde_path_to_error::deserialize(&mut json)
                .map_err(|e| format!("--config {shown}: {}: {}", e.path(), e.inner()))?;
            CompiledConfig::compile(&config).map_err(|e| format!("--config {shown}: {e}"))?
        }
        (None, None) => CompiledConfig::from(
            CompiledMapping::compile(&Mapping::default()).map_err(|e| format!("mapping: {e}"))?,
        ),
    };
    let paths: Vec<Option<&std::path::Path>> = if args.inputs.is_empty() {
        vec![None]
    } else {
        args.inputs.iter().map(|p| Some(p.as_path())).collect()
    };
    let sources = config.sources();
    if !sources.is_empty() && sources.len() != paths.len() {
        return Err(format!(
            "the config names {} sources, and {} feeds were given: give one feed per source, in order",
            sources.len(),
            paths.len()
        ));
    }
    let mut feeds = Vec::with_capacity(paths.len());
    for path in &paths {
        feeds.push(read_feed(*path, &limits)?);
    }
    // `"uids": "content"`: each feed's events get UIDs made from their content, keyed by the
    // source's address when the config names one (as the server keys them), else by the file.
    if config.content_uids() {
        for (i, feed) in feeds.iter_mut().enumerate() {
            let key = sources
                .get(i)
                .and_then(|s| s.url.clone())
                .unwrap_or_else(|| feed.0.clone());
            feed.1 = hearth::calendar::content_uids(&feed.1, &key, &limits, None)
                .map_err(|e| format!("{}: {e}", feed.0))?;
        }
    }
    let merged;
    let (shown, input): (String, &[u8]) = if feeds.len() == 1 && sources.is_empty() {
        (feeds[0].0.clone(), &feeds[0].1)
    } else {
        let inputs: Vec<MergeInput<'_>> = feeds
            .iter()
            .enumerate()
            .map(|(i, (_, bytes))| MergeInput {
                bytes,
                prefix: sources.get(i).and_then(|s| s.prefix.as_deref()),
            })
            .collect();
        merged = hearth::calendar::merge(&inputs, &limits, None).map_err(|e| match e {
            MergeError::Source { index, error } => format!("{}: {error}", feeds[index].0),
            other => other.to_string(),
        })?;
        for w in &merged.warnings {
            eprintln!("hearth: warning: {w}");
        }
        ("the merged feeds".to_owned(), &merged.bytes)
    };
    // A date window counts from now, as a hosted feed counts from the start of today.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let options = RemapOptions {
        calendar_name: args.name.clone(),
        now: Some(now),
        ..RemapOptions::default()
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let stats = hearth::calendar::remap_into(input, &config, &options, &limits, &mut out)
        .map_err(|e| format!("{shown}: {e}"))?;
    out.flush()
        .map_err(|e| format!("writing the feed failed: {e}"))?;
    for w in &stats.warnings {
        eprintln!("hearth: warning: {w}");
    }
    Ok(())
}

/// A feed for `hearth remap`: a file, or standard input for `None` and `-`; its name as shown in
/// messages and its bytes, within the limits.
fn read_feed(
    path: Option<&std::path::Path>,
    limits: &hearth::calendar::Limits,
) -> Result<(String, Vec<u8>), String> {
    use std::io::Read;
    let stdin = || -> (String, Box<dyn Read>, u64) {
        ("stdin".to_owned(), Box::new(std::io::stdin().lock()), 0)
    };
    let (shown, reader, size) = match path {
        None => stdin(),
        Some(p) if p.as_os_str() == "-" => stdin(),
        Some(p) => {
            let file = std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let size = file.metadata().map_or(0, |m| m.len());
            (
                p.display().to_string(),
                Box::new(file) as Box<dyn Read>,
                size,
            )
        }
    };
    let cap = limits.max_input_bytes as u64 + 1;
    // Sized up front: growing by doubling would briefly hold the input twice.
    let mut input = Vec::with_capacity(usize::try_from(size.min(cap)).unwrap_or(0) + 1);
    reader
        .take(cap)
        .read_to_end(&mut input)
        .map_err(|e| format!("{shown}: {e}"))?;
    Ok((shown, input))
}

/// clap's own errors span several lines; the contract is one line and status 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let rendered = e.render().to_string();
    let first = rendered
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ");
    eprintln!("hearth: {first} (see hearth --help)");
    ExitCode::from(2)
}

fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            eprintln!("hearth: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn serve(config: hearth::Config) -> anyhow::Result<()> {
    use anyhow::Context;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let data_dir = config.data_dir.clone();
        let (db, held) = tokio::task::spawn_blocking(move || {
            // Held until the process ends: `hearth restore` refuses while it is, and no
            // restore is half done when the database is opened.
            let held = hearth::store::lock_data_dir(&data_dir)
                .with_context(|| format!("locking {}", data_dir.display()))?
                .with_context(|| {
                    format!(
                        "another Hearth server is running on {}: stop it first",
                        data_dir.display()
                    )
                })?;
            let db = hearth::Db::open(&data_dir)?;
            anyhow::Ok((db, held))
        })
        .await
        .context("opening the database")??;
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("cannot listen on {}", config.listen))?;
        hearth::serve(config, db, listener, shutdown_signal()).await?;
        drop(held);
        Ok(())
    })
}

/// `hearth backup`: the copy runs on a thread of its own while Ctrl-C or SIGTERM stop it, and a
/// stopped copy leaves no file (neither the partial copy nor SQLite's journal of it).
fn backup(data_dir: std::path::PathBuf, path: std::path::PathBuf) -> anyhow::Result<u64> {
    use hearth::store::{backup_file, CopyStop};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let stop = CopyStop::default();
        let copying = stop.clone();
        let copy = tokio::task::spawn_blocking(move || backup_file(&data_dir, &path, &copying));
        tokio::pin!(copy);
        let copied = tokio::select! {
            copied = &mut copy => copied,
            () = shutdown_signal() => {
                stop.stop();
                copy.await
            }
        };
        Ok(copied??)
    })
}

/// Resolves on SIGTERM (systemd stop) or SIGINT (Ctrl-C).
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
