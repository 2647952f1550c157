-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Marquee schema 8: the virtual waiting room of a hot show.
--
-- Sized for millions of waiting users: a join is one single-row INSERT, a status poll reads one entry by its
-- primary key (and is cached once the entry's rank is known), and admission advances one watermark per show.
-- A position is rank - admitted_upto, never a COUNT over the queue.

CREATE TABLE waiting_rooms (
    show_id            bigint PRIMARY KEY REFERENCES shows ON DELETE CASCADE,
    enabled            boolean NOT NULL DEFAULT true,
    opens_at           timestamptz NOT NULL,       -- arrivals before this are shuffled at opening
    opened             boolean NOT NULL DEFAULT false,
    automatic          boolean NOT NULL DEFAULT false, -- switched on by the demand threshold, not by a manager
    secret             bytea NOT NULL CHECK (length(secret) >= 32), -- HMAC key of this room's queue and admission tokens
    admission_ttl_s    integer NOT NULL DEFAULT 600 CHECK (admission_ttl_s BETWEEN 10 AND 86400),
    min_admit_per_s    double precision NOT NULL DEFAULT 20 CHECK (min_admit_per_s > 0),
    max_in_flight      integer NOT NULL DEFAULT 2000 CHECK (max_in_flight > 0),
    ranked_upto        bigint NOT NULL DEFAULT 0,  -- ranks 1..ranked_upto are assigned
    admitted_upto      bigint NOT NULL DEFAULT 0,  -- the watermark: ranks 1..admitted_upto are admitted
    admit_rate_per_s   double precision NOT NULL DEFAULT 0, -- smoothed admissions per second (for eta_s)
    taken_seats        bigint NOT NULL DEFAULT 0,  -- held + booked seats at the last tick
    taken_rate_per_s   double precision NOT NULL DEFAULT 0, -- smoothed seats taken per second (hold + confirm rate)
    sold_out           boolean NOT NULL DEFAULT false,
    sold_out_at        timestamptz,
    last_tick_at       timestamptz NOT NULL DEFAULT '-infinity',
    updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE waiting_room_entries (
    entry_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- arrival order (FIFO after opening)
    show_id         bigint NOT NULL REFERENCES waiting_rooms ON DELETE CASCADE,
    owner           text NOT NULL,              -- the device or session the tokens are bound to
    joined_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    rank            bigint,                     -- queue order; NULL until the next admission tick (or the opening)
    admitted_at     timestamptz,
    hold_id         uuid,                       -- the admission's current hold (one at a time)
    hold_claimed_at timestamptz,                -- a hold request with this admission is in flight
    held_at         timestamptz                 -- first successful hold
);
CREATE UNIQUE INDEX waiting_room_entries_rank ON waiting_room_entries (show_id, rank);
CREATE INDEX waiting_room_entries_unranked ON waiting_room_entries (show_id, entry_id) WHERE rank IS NULL;
-- Shoppers admitted and still choosing (no hold yet): the tick counts them to bound how many choose at once.
CREATE INDEX waiting_room_entries_choosing ON waiting_room_entries (show_id, admitted_at)
    WHERE admitted_at IS NOT NULL AND held_at IS NULL;
-- mq_waiting_room_tick: server/sql/functions/mq_waiting_room_tick.sql
