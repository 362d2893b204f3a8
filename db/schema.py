"""The schema, as forward migrations. ``PRAGMA user_version`` counts those applied.

Append a migration to change the schema; never edit one that has shipped.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping

from lmmreview.engine.registry import official_rules
from lmmreview.engine.scoring import OFFLINE_RULES, USABLE


def deciding_ids(where: str) -> str:
    """The one definition of which judgment decides a run: the SELECT of the id of the
    latest judgment of each (answer, run) among the judgments `l` that `where` keeps (joins
    and a WHERE clause). A whole dataset's, to join on `id`; or, with `where` tied to one
    answer and run, a scalar (see DECIDES_RUN): each form is the faster one for its query.
    """
    return f"SELECT MAX(l.id) AS id FROM judgments l {where} GROUP BY l.answer_id, l.run"


# A judge as its judgments' fields name it (engine.scoring.Judge.of says the same). The
# prompt: any for the offline rules, the variant for an LLM (after "+"; "" for the reference
# prompts, whatever the question type asks), the tool's prompt for an imported judge.
def judge_prompt(row: str) -> str:
    """The prompt of the judge of judgment `row` (an alias, or NEW/OLD in a trigger)."""
    return (
        f"(CASE {row}.judge_kind WHEN 'offline' THEN '*' "
        f"WHEN 'llm' THEN CASE WHEN instr({row}.prompt_hash, '+') > 0 "
        f"THEN substr({row}.prompt_hash, instr({row}.prompt_hash, '+') + 1) ELSE '' END "
        f"ELSE COALESCE({row}.prompt_hash, '') END)"
    )


def judge_model(row: str) -> str:
    """The model of the judge of judgment `row` (an alias, or NEW/OLD in a trigger): the
    offline rules are one, whatever recorded them."""
    return (
        f"(CASE {row}.judge_kind WHEN 'offline' THEN '{OFFLINE_RULES}' "
        f"ELSE COALESCE({row}.judge_model, '') END)"
    )


# The same, of judgment `l`.
JUDGE_PROMPT, JUDGE_MODEL = judge_prompt("l"), judge_model("l")


def judge_is(row: str) -> str:
    """Judgment `row` is one judge's (parameters: Judge.parameters())."""
    return f"({row}.judge_kind = ? AND {judge_model(row)} = ? AND {judge_prompt(row)} = ?)"


def judge_reads(row: str) -> str:
    """Judgment `row` is one that a judge's tables read (parameters: Judge.parameters()):
    its own, and option matches (an MMBench row step 1 settles needs no judge, so it counts
    for every one)."""
    return f"({judge_is(row)} OR {row}.method = 'matched')"


JUDGE_READS = judge_reads("l")

# `j` decides its run: for queries that test judgments one at a time.
DECIDES_RUN = f"j.id = ({deciding_ids('WHERE l.answer_id = j.answer_id AND l.run = j.run')})"

# The same rule as the views of migration 4 shipped it; that text stays as it is.
DECIDES = (
    "j.id = (SELECT MAX(l.id) FROM judgments l WHERE l.answer_id = j.answer_id AND l.run = j.run)"
)


def _effective_scores_view(imported: str = "", shown_judge: bool = False) -> str:
    """The view of every answer's effective score per run; `imported` is the CASE branch
    that labels imported judgments (migration 6 adds it; migration 4 shipped without);
    `shown_judge` reads only the judgments of each dataset's default judge (migration 8:
    the `judges` view's `shown` one, as `lmmreview report` shows without --judge)."""
    labels = "\n                " + imported if imported else ""
    if shown_judge:
        reads = f"""(SELECT l.* FROM judgments l JOIN answers a ON a.id = l.answer_id
            JOIN samples s ON s.id = a.sample_id JOIN judges h ON h.dataset_id = s.dataset_id
            AND h.shown WHERE (l.judge_kind = h.judge_kind
            AND {JUDGE_MODEL} = h.judge_model AND {JUDGE_PROMPT} = h.prompt)
            OR l.method = 'matched')"""
        decides = "j.id IN (SELECT MAX(r.id) FROM read r GROUP BY r.answer_id, r.run)"
        judged = "read"
    else:
        reads, decides, judged = "", DECIDES, "judgments"
    return f"""
    -- A dataset has as many runs as its highest judged run (failed ones too), at least one.
    -- A human score holds for every run; else the run's latest judgment decides it, and
    -- a failed one leaves the run unscored.
    CREATE VIEW effective_scores AS
    WITH RECURSIVE {f"read AS {reads}, " if reads else ""}top (dataset_id, runs) AS (
        SELECT d.id, 1 + COALESCE((SELECT MAX(j.run) FROM {judged} j
            JOIN answers a ON a.id = j.answer_id JOIN samples s ON s.id = a.sample_id
            WHERE s.dataset_id = d.id), 0)
        FROM datasets d
    ), dataset_runs (dataset_id, run, runs) AS (
        SELECT dataset_id, 0, runs FROM top
        UNION ALL
        SELECT dataset_id, run + 1, runs FROM dataset_runs WHERE run + 1 < runs
    )
    SELECT a.id AS answer_id, d.name AS dataset, s.key AS sample_key, m.name AS model,
           n.run,
           CASE WHEN v.score IS NOT NULL THEN NULL ELSE j.judge_model END AS judge,
           COALESCE(v.score, j.score) AS score,
           CASE WHEN v.score IS NOT NULL THEN 'human'
                WHEN j.score IS NULL THEN 'unscored'
                WHEN j.status = 'fallback' THEN 'fallback'
                WHEN j.judge_kind = 'offline' THEN 'offline'{labels}
                ELSE 'judge' END AS source,
           CASE WHEN v.score IS NOT NULL THEN v.reviewer END AS reviewer,
           CASE WHEN v.score IS NULL THEN j.id END AS judgment_id
    FROM answers a JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id
    JOIN datasets d ON d.id = s.dataset_id JOIN dataset_runs n ON n.dataset_id = d.id
    LEFT JOIN current_verdicts v ON v.answer_id = a.id
    LEFT JOIN judgments j ON j.answer_id = a.id AND j.run = n.run
        AND j.status IN {USABLE} AND {decides};
    """.strip()


_IMPORTED_LABEL = "WHEN j.judge_kind = 'imported' THEN 'imported'"


def _dataset_judge(row: str) -> str:
    """The key of the dataset_judges row that counts judgment `row` (NEW or OLD)."""
    return (
        "dataset_id = (SELECT s.dataset_id FROM answers a JOIN samples s ON s.id = a.sample_id "
        f"WHERE a.id = {row}.answer_id) AND judge_kind = {row}.judge_kind "
        f"AND judge_model = {judge_model(row)} AND prompt = {judge_prompt(row)}"
    )


# Count judgment NEW in its judge's row of dataset_judges (made at its first judgment).
_COUNT_NEW = f"""
        INSERT INTO dataset_judges (dataset_id, judge_kind, judge_model, prompt, judgments,
            usable, matched, first_judgment_id)
        SELECT s.dataset_id, NEW.judge_kind, {judge_model("NEW")}, {judge_prompt("NEW")}, 1,
            NEW.status IN {USABLE}, NEW.method IS 'matched', NEW.id
        FROM answers a JOIN samples s ON s.id = a.sample_id WHERE a.id = NEW.answer_id
        ON CONFLICT (dataset_id, judge_kind, judge_model, prompt) DO UPDATE SET
            judgments = judgments + 1, usable = usable + excluded.usable,
            matched = matched + excluded.matched,
            first_judgment_id = MIN(first_judgment_id, excluded.first_judgment_id);"""

# Count the judgments from id ? on at once, as _COUNT_NEW counts each (see
# Store.judgments_counted_together).
COUNT_JUDGMENTS_FROM = f"""
    INSERT INTO dataset_judges (dataset_id, judge_kind, judge_model, prompt, judgments,
        usable, matched, first_judgment_id)
    SELECT s.dataset_id, l.judge_kind, {JUDGE_MODEL}, {JUDGE_PROMPT}, COUNT(*),
        SUM(l.status IN {USABLE}), SUM(l.method IS 'matched'), MIN(l.id)
    FROM judgments l JOIN answers a ON a.id = l.answer_id JOIN samples s ON s.id = a.sample_id
    WHERE l.id >= ? GROUP BY 1, 2, 3, 4
    ON CONFLICT (dataset_id, judge_kind, judge_model, prompt) DO UPDATE SET
        judgments = judgments + excluded.judgments, usable = usable + excluded.usable,
        matched = matched + excluded.matched,
        first_judgment_id = MIN(first_judgment_id, excluded.first_judgment_id)"""
COUNTING_TRIGGER = "dataset_judges_insert"  # migration 10's trigger running _COUNT_NEW

# Uncount judgment OLD; a judge's row goes with its last judgment. Its first_judgment_id
# stays (finding the next would read the judge's judgments): after deletions it is a lower
# bound, so a judge keeps its place among the dataset's judges.
_UNCOUNT_OLD = f"""
        UPDATE dataset_judges SET judgments = judgments - 1,
            usable = usable - (OLD.status IN {USABLE}),
            matched = matched - (OLD.method IS 'matched')
        WHERE {_dataset_judge("OLD")};
        DELETE FROM dataset_judges WHERE {_dataset_judge("OLD")} AND judgments = 0;"""


def _imported_rows(table: str, run: str, where: str) -> str:
    """Migration 11: the rows of `table` another tool's file brought, with their import's
    key (dataset, file, judge)."""
    return (
        f"SELECT l.id, s.dataset_id, COALESCE(l.source, '') AS file, "
        f"COALESCE(l.judge_model, '') AS judge, {run} AS run, l.created_at FROM {table} l "
        f"JOIN answers a ON a.id = l.answer_id JOIN samples s ON s.id = a.sample_id {where}"
    )


def _point_to_import(table: str, where: str) -> str:
    """Migration 11: point each row of `table` an import brought to its import."""
    return (
        f"UPDATE {table} SET import_id = (SELECT i.id FROM imports i WHERE "
        f"i.file = COALESCE({table}.source, '') AND i.judge = COALESCE({table}.judge_model, '') "
        "AND i.dataset_id = (SELECT s.dataset_id FROM answers a JOIN samples s "
        f"ON s.id = a.sample_id WHERE a.id = {table}.answer_id)) {where};"
    )


def _judges_view(rules_last: str) -> str:
    """The `judges` view over `dataset_judges` (migrations 10, 12): each dataset's judges,
    the default one `shown`: a usable one, then as `rules_last` orders the offline rules
    (false first), then the first to come."""
    return f"""
    CREATE VIEW judges AS
    SELECT dataset_id, dataset, judge_kind, judge_model, prompt, judgments, usable,
           first_judgment_id, rank = 1 AS shown FROM (
        SELECT h.dataset_id, d.name AS dataset, h.judge_kind, h.judge_model, h.prompt,
               h.judgments, h.usable, h.first_judgment_id,
               ROW_NUMBER() OVER (PARTITION BY h.dataset_id
                   ORDER BY h.usable = 0, {rules_last}, h.first_judgment_id) AS rank
        FROM dataset_judges h JOIN datasets d ON d.id = h.dataset_id
    );"""


# A migration is an SQL script, or a function for what SQL alone cannot do well.
Migration = str | Callable[[sqlite3.Connection], None]

MIGRATIONS: tuple[Migration, ...] = (
    # 1: the first schema.
    """
    CREATE TABLE datasets (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE,
        kind        TEXT NOT NULL CHECK (kind IN ('mmvet', 'mmbench', 'mmmu', 'generic')),
        source      TEXT,               -- the file it was first imported from
        created_at  TEXT NOT NULL
    );

    CREATE TABLE samples (
        id              INTEGER PRIMARY KEY,
        dataset_id      INTEGER NOT NULL REFERENCES datasets(id),
        key             TEXT NOT NULL,  -- the benchmark's own id
        question        TEXT NOT NULL,
        question_type   TEXT NOT NULL CHECK (question_type IN ('open', 'choice')),
        answer          TEXT,           -- ground truth; NULL when unknown (a test split)
        alt_answers     TEXT,           -- JSON list of further acceptable answers
        options         TEXT,           -- JSON object letter -> text, in order
        hint            TEXT,
        split           TEXT,
        capabilities    TEXT,           -- JSON list, MM-Vet order
        category        TEXT,           -- MMBench L-3
        l2_category     TEXT,           -- MMBench L-2
        circular_group  INTEGER,
        rotation        INTEGER,
        subject         TEXT,           -- MMMU
        discipline      TEXT,
        subfield        TEXT,
        difficulty      TEXT,
        img_type        TEXT,
        tags            TEXT,           -- JSON object of free breakdown tags
        UNIQUE (dataset_id, key)
    );
    CREATE INDEX samples_circular ON samples(dataset_id, circular_group);

    -- Image bytes are stored once, by content hash.
    CREATE TABLE images (
        hash    TEXT PRIMARY KEY,       -- sha256 of the bytes
        bytes   BLOB NOT NULL,
        size    INTEGER NOT NULL,
        format  TEXT NOT NULL,
        width   INTEGER NOT NULL,
        height  INTEGER NOT NULL
    );

    CREATE TABLE sample_images (
        sample_id   INTEGER NOT NULL REFERENCES samples(id),
        position    INTEGER NOT NULL,   -- 1-based, as MMMU's image_1 ... image_7
        image_hash  TEXT NOT NULL REFERENCES images(hash),
        PRIMARY KEY (sample_id, position)
    );
    CREATE INDEX sample_images_hash ON sample_images(image_hash);

    CREATE TABLE models (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE,
        created_at  TEXT NOT NULL
    );

    CREATE TABLE answers (
        id          INTEGER PRIMARY KEY,
        sample_id   INTEGER NOT NULL REFERENCES samples(id),
        model_id    INTEGER NOT NULL REFERENCES models(id),
        text        TEXT NOT NULL,
        source      TEXT,               -- the file it was imported from
        created_at  TEXT NOT NULL,
        UNIQUE (sample_id, model_id)
    );
    CREATE INDEX answers_model ON answers(model_id);

    -- One row per judge call that came back (or gave up), never updated.
    CREATE TABLE judgments (
        id                  INTEGER PRIMARY KEY,
        answer_id           INTEGER NOT NULL REFERENCES answers(id),
        run                 INTEGER NOT NULL DEFAULT 0,
        judge_kind          TEXT NOT NULL,      -- llm | offline
        judge_model         TEXT,
        prompt_hash         TEXT,
        settings            TEXT,               -- JSON: temperature, max_tokens, ...
        raw_reply           TEXT,
        score               REAL CHECK (score IS NULL OR (score >= 0 AND score <= 1)),
        choice              TEXT,
        method              TEXT,               -- how it was decided: matched, llm, fallback, ...
        status              TEXT NOT NULL
                            CHECK (status IN ('ok', 'unparseable', 'error', 'fallback')),
        error               TEXT,
        prompt_tokens       INTEGER,
        completion_tokens   INTEGER,
        latency_ms          REAL,
        created_at          TEXT NOT NULL
    );
    CREATE INDEX judgments_answer ON judgments(answer_id, run);

    -- Human verdicts: append-only history; the latest row per answer is current.
    CREATE TABLE reviews (
        id              INTEGER PRIMARY KEY,
        answer_id       INTEGER NOT NULL REFERENCES answers(id),
        score           REAL CHECK (score IS NULL OR (score >= 0 AND score <= 1)),
        choice          TEXT,
        previous_score  REAL,
        previous_choice TEXT,
        action          TEXT NOT NULL,          -- grade | accept | undo
        reviewer        TEXT NOT NULL,
        note            TEXT,
        created_at      TEXT NOT NULL
    );
    CREATE INDEX reviews_answer ON reviews(answer_id, id);
    CREATE TRIGGER reviews_no_update BEFORE UPDATE ON reviews
        BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;
    CREATE TRIGGER reviews_no_delete BEFORE DELETE ON reviews
        BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;

    -- Replies of LLM calls, keyed by a hash of (model, messages, settings, run).
    CREATE TABLE llm_cache (
        key         TEXT PRIMARY KEY,
        model       TEXT NOT NULL,
        reply       TEXT NOT NULL,
        prompt_tokens       INTEGER,
        completion_tokens   INTEGER,
        created_at  TEXT NOT NULL
    );
    """,
    # 2: claims, so that two judge runs on one file never judge the same item twice.
    """
    CREATE TABLE judge_claims (
        answer_id   INTEGER NOT NULL REFERENCES answers(id),
        run         INTEGER NOT NULL,
        judge_model TEXT NOT NULL,
        owner       TEXT NOT NULL,      -- host:pid of the judge run holding it
        claimed_at  TEXT NOT NULL,
        PRIMARY KEY (answer_id, run, judge_model)
    );
    CREATE INDEX judgments_model ON judgments(judge_model, status);
    """,
    # 3: flags a reviewer sets to come back to an answer; append-only like reviews.
    """
    CREATE TABLE flags (
        id          INTEGER PRIMARY KEY,
        answer_id   INTEGER NOT NULL REFERENCES answers(id),
        flagged     INTEGER NOT NULL CHECK (flagged IN (0, 1)),
        reviewer    TEXT NOT NULL,
        created_at  TEXT NOT NULL
    );
    CREATE INDEX flags_answer ON flags(answer_id, id);
    CREATE TRIGGER flags_no_update BEFORE UPDATE ON flags
        BEGIN SELECT RAISE(ABORT, 'flags are append-only'); END;
    CREATE TRIGGER flags_no_delete BEFORE DELETE ON flags
        BEGIN SELECT RAISE(ABORT, 'flags are append-only'); END;
    """,
    # 4: views that let sqlite3, Datasette or pandas read the file without lmmreview. They
    # follow the rule of engine.scoring.effective; tests/test_views.py holds them to it.
    f"""
    CREATE VIEW answers_readable AS
    SELECT a.id AS answer_id, d.name AS dataset, s.key AS sample_key, m.name AS model,
           s.question, s.options, s.answer AS gold, a.text AS model_answer,
           a.source, a.created_at AS imported_at
    FROM answers a JOIN samples s ON s.id = a.sample_id JOIN models m ON m.id = a.model_id
    JOIN datasets d ON d.id = s.dataset_id;

    -- The latest review of an answer is in force when it carries a verdict (an undo back
    -- to no verdict leaves none); a chosen option is scored against every gold.
    CREATE VIEW current_verdicts AS
    SELECT r.answer_id, d.name AS dataset, s.key AS sample_key, m.name AS model,
           r.score AS verdict_score, r.choice AS verdict_choice,
           CASE WHEN r.choice IS NULL THEN r.score
                WHEN s.answer IS NULL THEN NULL
                WHEN r.choice = s.answer
                     OR r.choice IN (SELECT value FROM json_each(s.alt_answers)) THEN 1.0
                ELSE 0.0 END AS score,
           r.action, r.reviewer, r.note, r.created_at AS reviewed_at
    FROM reviews r JOIN answers a ON a.id = r.answer_id JOIN samples s ON s.id = a.sample_id
    JOIN models m ON m.id = a.model_id JOIN datasets d ON d.id = s.dataset_id
    WHERE r.id = (SELECT MAX(l.id) FROM reviews l WHERE l.answer_id = r.answer_id)
      AND (r.score IS NOT NULL OR r.choice IS NOT NULL);

    {_effective_scores_view()}
    """,
    # 5: samples carry generic axes and extra fields, and a dataset's kind is the name of
    # any installed benchmark (see `_generic_samples`).
    lambda conn: _generic_samples(conn),
    # 6: judgments read from another tool's files (the official MM-Vet grader's, VLMEvalKit's,
    # lmms-eval's) keep the file they came from, and the views label them `imported`.
    # A circular group's verdict as another tool computed it (VLMEvalKit's `hit`) is kept
    # whole, beside lmmreview's own CircularEval of the same rows: it never decides a score.
    f"""
    ALTER TABLE judgments ADD COLUMN source TEXT;  -- the file an imported judgment came from

    CREATE TABLE group_verdicts (
        id          INTEGER PRIMARY KEY,
        answer_id   INTEGER NOT NULL REFERENCES answers(id),  -- the group's main row
        score       REAL NOT NULL CHECK (score >= 0 AND score <= 1),
        failed_at   INTEGER,            -- the rotation that failed, when the log names one
        judge_model TEXT,
        raw_reply   TEXT,               -- the tool's own log of the verdict
        source      TEXT NOT NULL,      -- the file it was read from
        created_at  TEXT NOT NULL
    );
    CREATE INDEX group_verdicts_answer ON group_verdicts(answer_id, id);

    DROP VIEW effective_scores;
    {_effective_scores_view(_IMPORTED_LABEL)}
    """,
    # 7: why a model got an answer wrong (MMMU §5), append-only like reviews: one row per
    # change, the latest row of an answer holds its cause (NULL: none). An undo appends the
    # cause it restores, marked 'undo', so undo can go back more than one step.
    """
    CREATE TABLE causes (
        id          INTEGER PRIMARY KEY,
        answer_id   INTEGER NOT NULL REFERENCES answers(id),
        cause       TEXT,
        previous    TEXT,
        action      TEXT NOT NULL DEFAULT 'set' CHECK (action IN ('set', 'undo')),
        reviewer    TEXT NOT NULL,
        created_at  TEXT NOT NULL
    );
    CREATE INDEX causes_answer ON causes(answer_id, id);
    CREATE TRIGGER causes_no_update BEFORE UPDATE ON causes
        BEGIN SELECT RAISE(ABORT, 'causes are append-only'); END;
    CREATE TRIGGER causes_no_delete BEFORE DELETE ON causes
        BEGIN SELECT RAISE(ABORT, 'causes are append-only'); END;
    """,
    # 8: judges side by side. Each judge's runs stand apart; a table shows one judge's. The
    # `judges` view lists each dataset's judges, the default (`shown`) first as Store.judges
    # orders them, and `effective_scores` reads only the shown judge's judgments.
    f"""
    CREATE VIEW judges AS
    SELECT dataset_id, dataset, judge_kind, judge_model, prompt, judgments, usable,
           first_judgment_id, rank = 1 AS shown FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY dataset_id
            ORDER BY usable = 0, judge_kind = 'offline', first_judgment_id) AS rank
        FROM (
            SELECT s.dataset_id, d.name AS dataset, l.judge_kind,
                   {JUDGE_MODEL} AS judge_model, {JUDGE_PROMPT} AS prompt,
                   COUNT(*) AS judgments, SUM(l.status IN {USABLE}) AS usable,
                   MIN(l.id) AS first_judgment_id
            FROM judgments l JOIN answers a ON a.id = l.answer_id
            JOIN samples s ON s.id = a.sample_id JOIN datasets d ON d.id = s.dataset_id
            GROUP BY 1, 2, 3, 4, 5
        )
    );

    DROP VIEW effective_scores;
    {_effective_scores_view(_IMPORTED_LABEL, shown_judge=True)}
    """,
    # 9: judge runs through a Batch API. A batch is recorded (with its requests and their
    # claims) before its file is uploaded, so a killed process loses nothing and a request
    # is never sent twice; `tag` goes with the batch as metadata, to find a batch whose
    # creation a killed process did not record. The API key is never stored.
    """
    CREATE TABLE judge_batches (
        id              INTEGER PRIMARY KEY,
        tag             TEXT NOT NULL UNIQUE,
        judge_model     TEXT NOT NULL,
        prompt_variant  TEXT,               -- the MM-Vet prompt variant (NULL: the reference)
        base_url        TEXT,               -- the API it went to (NULL: the default)
        owner           TEXT NOT NULL,      -- host:pid of the process that submitted it
        input_file_id   TEXT,
        batch_id        TEXT,               -- the provider's id, once the batch is created
        status          TEXT NOT NULL,      -- 'preparing', the provider's, then 'collected'
        completed       INTEGER NOT NULL DEFAULT 0,  -- the provider's counts, last polled
        failed          INTEGER NOT NULL DEFAULT 0,
        created_at      TEXT NOT NULL,
        collected_at    TEXT
    );
    CREATE TABLE judge_batch_requests (
        custom_id   TEXT PRIMARY KEY,
        sent_as     TEXT NOT NULL,          -- the line asking its call (items share one)
        batch       INTEGER NOT NULL REFERENCES judge_batches(id),
        answer_id   INTEGER NOT NULL REFERENCES answers(id),
        run         INTEGER NOT NULL,
        step        INTEGER NOT NULL,       -- the call's place on the item's ladder, from 0
        cache_key   TEXT NOT NULL,
        outcome     TEXT                    -- NULL in flight; 'reply', or why it failed
    );
    CREATE INDEX judge_batch_requests_batch ON judge_batch_requests(batch);
    CREATE INDEX judge_batch_requests_item ON judge_batch_requests(answer_id, run);
    """,
    # 10: each dataset's judges with their counts, kept by triggers as judgments come and go
    # (plain SQL deletes too), so that listing them (Store.judges, the `judges` view) reads
    # a few rows instead of grouping every judgment. The triggers read answers and samples:
    # a migration that rebuilds one of those drops them first and makes them again.
    f"""
    CREATE TABLE dataset_judges (
        dataset_id          INTEGER NOT NULL REFERENCES datasets(id),
        judge_kind          TEXT NOT NULL,      -- llm | offline | imported
        judge_model         TEXT NOT NULL,      -- as JUDGE_MODEL: 'offline rules' for any rules
        prompt              TEXT NOT NULL,      -- as JUDGE_PROMPT: '*' for the offline rules
        judgments           INTEGER NOT NULL,   -- its judgments of the dataset's answers
        usable              INTEGER NOT NULL,   -- of those, usable ones (ok, fallback)
        matched             INTEGER NOT NULL,   -- of those, option matches (count for every judge)
        first_judgment_id   INTEGER NOT NULL,   -- its lowest id; a delete leaves it as it was
        PRIMARY KEY (dataset_id, judge_kind, judge_model, prompt)
    );
    INSERT INTO dataset_judges
    SELECT s.dataset_id, l.judge_kind, {JUDGE_MODEL}, {JUDGE_PROMPT}, COUNT(*),
           SUM(l.status IN {USABLE}), SUM(l.method IS 'matched'), MIN(l.id)
    FROM judgments l JOIN answers a ON a.id = l.answer_id JOIN samples s ON s.id = a.sample_id
    GROUP BY 1, 2, 3, 4;

    CREATE TRIGGER dataset_judges_insert AFTER INSERT ON judgments
    BEGIN{_COUNT_NEW}
    END;
    CREATE TRIGGER dataset_judges_delete AFTER DELETE ON judgments
    BEGIN{_UNCOUNT_OLD}
    END;
    CREATE TRIGGER dataset_judges_update
    AFTER UPDATE OF id, answer_id, judge_kind, judge_model, prompt_hash, status, method
    ON judgments
    BEGIN{_UNCOUNT_OLD}{_COUNT_NEW}
    END;

    DROP VIEW judges;
    {_judges_view("h.judge_kind = 'offline'")}
    """,
    # 11: each import that brings another tool's judgments or circular verdicts is recorded,
    # and they point to it, so that an import can be listed, refused over another of the
    # same judge, replaced on purpose or removed. The earlier imports are recorded from what
    # they brought, one per dataset, file and judge (their file's hash unknown).
    f"""
    CREATE TABLE imports (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: a user names it
        dataset_id  INTEGER NOT NULL REFERENCES datasets(id),
        file        TEXT NOT NULL,      -- the file as given
        sha256      TEXT,               -- of its bytes (NULL: recorded by this migration)
        judge       TEXT NOT NULL,      -- the judge model its judgments name
        runs        INTEGER NOT NULL,
        created_at  TEXT NOT NULL
    );
    ALTER TABLE judgments ADD COLUMN import_id INTEGER REFERENCES imports(id);
    ALTER TABLE group_verdicts ADD COLUMN import_id INTEGER REFERENCES imports(id);
    CREATE INDEX judgments_import ON judgments(import_id);
    CREATE INDEX group_verdicts_import ON group_verdicts(import_id);

    INSERT INTO imports (dataset_id, file, judge, runs, created_at)
    SELECT dataset_id, file, judge, MAX(run) + 1, MIN(created_at) FROM (
        {_imported_rows("judgments", "l.run", "WHERE l.judge_kind = 'imported'")}
        UNION ALL
        {_imported_rows("group_verdicts", "0", "")}
    ) GROUP BY dataset_id, file, judge ORDER BY MIN(created_at), MIN(id);
    {_point_to_import("judgments", "WHERE judge_kind = 'imported'")}
    {_point_to_import("group_verdicts", "")}
    """,
    # 12: where a benchmark's offline rules are its official scoring (Benchmark.official_rules,
    # recorded with each dataset), they are the default judge, before another tool's imported
    # verdicts.
    lambda conn: _rules_first(conn),
    # 13: an import keeps what the tool that wrote its file recorded of the run (a JSON
    # object: tool, version, commit, command, judge, date; NULL where nothing was).
    """
    ALTER TABLE imports ADD COLUMN run TEXT;
    """,
    # 14: review as annotation studies run it. A verdict records whether it was given
    # blind (model names and judge scores hidden until it was saved). Errata of the ground
    # truth are append-only like causes: the latest row of a sample holds its erratum in
    # force (status NULL: none); an undo appends the state it restores. Assignments split
    # a file's answers among reviewers, with a common overlap (`overlap` 1) to measure
    # agreement on.
    """
    ALTER TABLE reviews ADD COLUMN blind INTEGER NOT NULL DEFAULT 0 CHECK (blind IN (0, 1));

    CREATE TABLE errata (
        id          INTEGER PRIMARY KEY,
        sample_id   INTEGER NOT NULL REFERENCES samples(id),
        status      TEXT CHECK (status IS NULL OR status IN ('wrong', 'ambiguous')),
        gold        TEXT,               -- the corrected gold; NULL: as published
        alt_answers TEXT,               -- JSON list of further acceptable answers
        reason      TEXT,
        action      TEXT NOT NULL DEFAULT 'set' CHECK (action IN ('set', 'undo')),
        reviewer    TEXT NOT NULL,
        created_at  TEXT NOT NULL
    );
    CREATE INDEX errata_sample ON errata(sample_id, id);
    CREATE TRIGGER errata_no_update BEFORE UPDATE ON errata
        BEGIN SELECT RAISE(ABORT, 'errata are append-only'); END;
    CREATE TRIGGER errata_no_delete BEFORE DELETE ON errata
        BEGIN SELECT RAISE(ABORT, 'errata are append-only'); END;

    CREATE TABLE assignments (
        id          INTEGER PRIMARY KEY,
        answer_id   INTEGER NOT NULL REFERENCES answers(id),
        reviewer    TEXT NOT NULL,
        overlap     INTEGER NOT NULL DEFAULT 0 CHECK (overlap IN (0, 1)),
        seed        INTEGER,
        created_at  TEXT NOT NULL,
        UNIQUE (answer_id, reviewer)
    );
    CREATE INDEX assignments_reviewer ON assignments(reviewer, answer_id);
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)
# Every table the migrations make: a view or a virtual table of one of these names in a
# file means the file was edited (reading such a view runs its code, perhaps for ever).
TABLES = frozenset(
    re.findall(r"CREATE TABLE (\w+)", "".join(m for m in MIGRATIONS if isinstance(m, str)))
)


# -- migration 5 ------------------------------------------------------------------------

_DATASETS_5 = """
CREATE TABLE {name} (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL,      -- the benchmark's name (engine.registry)
    source      TEXT,               -- the file it was first imported from
    created_at  TEXT NOT NULL
)
"""

_SAMPLES_5 = """
CREATE TABLE {name} (
    id              INTEGER PRIMARY KEY,
    dataset_id      INTEGER NOT NULL REFERENCES datasets(id),
    key             TEXT NOT NULL,  -- the benchmark's own id
    question        TEXT NOT NULL,
    question_type   TEXT NOT NULL CHECK (question_type IN ('open', 'choice')),
    answer          TEXT,           -- ground truth; NULL when unknown (a test split)
    alt_answers     TEXT,           -- JSON list of further acceptable answers
    options         TEXT,           -- JSON object letter -> text, in order
    hint            TEXT,
    split           TEXT,
    axes            TEXT,           -- JSON object: breakdown axis -> list of values
    extra           TEXT,           -- JSON object: the benchmark's own further fields
    UNIQUE (dataset_id, key)
)
"""

_VIEWS = ("effective_scores", "current_verdicts", "answers_readable")
_OLD_SINGLE_AXES = ("category", "l2_category", "subject", "discipline", "subfield", "difficulty")


def _rules_first(conn: sqlite3.Connection) -> None:
    """Migration 12: each dataset records whether its benchmark's offline rules are the
    official scoring (as installed now: a benchmark that is not counts as not), and the
    `judges` view puts them first there."""
    conn.execute("ALTER TABLE datasets ADD COLUMN rules_first INTEGER NOT NULL DEFAULT 0")
    kinds = [kind for (kind,) in conn.execute("SELECT DISTINCT kind FROM datasets")]
    official = [(kind,) for kind in kinds if official_rules(kind)]
    conn.executemany("UPDATE datasets SET rules_first = 1 WHERE kind = ?", official)
    conn.execute("DROP VIEW judges")
    conn.execute(_judges_view("h.judge_kind = 'offline' = (d.rules_first = 0)"))


def _generic_samples(conn: sqlite3.Connection) -> None:
    """Drop the benchmark-specific sample columns and the CHECK naming four kinds.

    The views read both tables, so they are dropped and made again around the rebuild.
    """
    for view in _VIEWS:
        conn.execute(f"DROP VIEW {view}")
    copy = "SELECT id, name, kind, source, created_at FROM {old}"
    rebuild_table(conn, "datasets", _DATASETS_5, copy)
    rebuild_table(conn, "samples", _SAMPLES_5, None, _samples_5)
    for statement in statements(str(MIGRATIONS[3])):
        conn.execute(statement)


def _samples_5(conn: sqlite3.Connection, table: str) -> None:
    """Copy samples into `table`, their old columns gathered into axes and extra."""
    rows = conn.execute(
        "SELECT id, dataset_id, key, question, question_type, answer, alt_answers, options, "
        "hint, split, capabilities, category, l2_category, subject, discipline, subfield, "
        "difficulty, img_type, tags, circular_group, rotation FROM samples"
    )
    conn.executemany(
        f"INSERT INTO {table} (id, dataset_id, key, question, question_type, answer, "
        "alt_answers, options, hint, split, axes, extra) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (_sample_5(row) for row in rows),
    )


def _sample_5(row: tuple) -> tuple:
    (*common, capabilities, category, l2, subject, discipline, subfield, difficulty, img_type,
     tags, group, rotation) = row  # fmt: skip
    axes: dict[str, list[str]] = {}
    for name, value in json.loads(tags or "{}").items():  # generic datasets' free tags
        axes[name] = [value] if isinstance(value, str) else list(value)
    if capabilities:
        axes["capability"] = json.loads(capabilities)
    for name, value in zip(
        _OLD_SINGLE_AXES, (category, l2, subject, discipline, subfield, difficulty), strict=True
    ):
        if value:
            axes[name] = [value]
    parts = [part.strip() for part in (img_type or "").split(",") if part.strip()]
    if parts:
        axes["img_type"] = parts
    extra = {name: value for name, value in (("circular_group", group), ("rotation", rotation))
             if value is not None}  # fmt: skip
    return (*common, object_json(axes), object_json(extra))


def object_json(value: Mapping[str, object]) -> str | None:
    """A sample's axes or extra fields as stored: compact, as SQLite's json_patch writes
    what it merges (so a re-import rewrites nothing); None when empty."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False) if value else None


def rebuild_table(
    conn: sqlite3.Connection,
    table: str,
    create: str,
    copy: str | None,
    fill: Callable[[sqlite3.Connection, str], None] | None = None,
) -> None:
    """Give `table` a new definition, keeping its rows, as SQLite's documentation says to.

    The new table is made under another name (`create` holds ``{name}``), filled (`copy`,
    a SELECT from ``{old}``, or `fill`), the old one dropped and the new one renamed into
    place. Renaming the old table away first would be the trap: SQLite would then rewrite
    the REFERENCES of every other table to follow it to its new name. Foreign keys must be
    off (the caller's transaction) and checked before commit; the table's indexes and
    triggers, and views reading it, must be made again by the caller.
    """
    new = f"{table}_rebuilt"
    conn.execute(create.format(name=new))
    if copy is not None:
        conn.execute(f"INSERT INTO {new} " + copy.format(old=table))
    if fill is not None:
        fill(conn, new)
    conn.execute(f"DROP TABLE {table}")
    conn.execute(f"ALTER TABLE {new} RENAME TO {table}")


def statements(script: str) -> Iterator[str]:
    """Split an SQL script into statements (triggers contain inner semicolons)."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer.strip()
            buffer = ""
    if buffer.strip():
        yield buffer.strip()
