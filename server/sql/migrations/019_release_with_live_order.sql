-- SPDX-License-Identifier: AGPL-3.0-or-later
-- Releasing a hold frozen by an in-flight payment: the release no longer frees the seats of a hold whose
-- order is CREATED, PENDING_PAYMENT or PAID. Freeing them let the customer's card be charged for seats that were
-- gone, which always ended in a refund. Instead the release names the live order and frees nothing; the server
-- then cancels the payment intent at the provider and ends the order (PENDING_PAYMENT → CANCELLED, which frees the
-- seats in the same transaction), or, when the customer had already paid, keeps the seats for the booking.
-- The hold row is locked first, as OrderRepository::create locks it before it inserts an order, so a release and
-- an order for the same hold are serialised: the release either sees the order or the order sees the release.
-- Same statements and lock order as 017 otherwise; the return type grows a column (hence DROP + CREATE).

-- Releases a hold at once. Idempotent: releasing a released or expired hold succeeds and changes nothing.
-- Returns the hold's show and the seats this call freed (ascending; empty when it freed none), or a row of NULLs
-- when the hold does not exist or belongs to someone else. o_live_order is the hold's unsettled order when there
-- is one: then nothing was changed.
DROP FUNCTION IF EXISTS mq_release_hold(text, uuid);
-- mq_release_hold: server/sql/functions/mq_release_hold.sql
