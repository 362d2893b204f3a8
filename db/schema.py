"""The schema, as forward migrations. ``PRAGMA user_version`` counts those applied.

Append a migration to change the schema; never edit one that has shipped.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
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
)

SCHEMA_VERSION = len(MIGRATIONS)
