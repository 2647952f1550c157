// SPDX-License-Identifier: AGPL-3.0-or-later
#include "sync/localstore.h"

#include <QJsonArray>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QThread>
#include <QUuid>
#include <gtest/gtest.h>

using namespace marquee::sync;

namespace {

NewAction holdAction(const QString &key, const QString &group = {})
{
    NewAction a;
    a.kind = QStringLiteral("hold");
    a.path = QStringLiteral("/api/v1/shows/1/hold");
    a.body = QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A1")}}};
    a.idempotencyKey = key;
    a.group = group;
    return a;
}

QVariant rawScalar(const QString &path, const QString &sql)
{
    QVariant value;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
        db.setDatabaseName(path);
        EXPECT_TRUE(db.open());
        QSqlQuery q(db);
        EXPECT_TRUE(q.exec(sql));
        if (q.next())
            value = q.value(0);
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    return value;
}

} // namespace

TEST(LocalStore, CreatesWalSchemaAndReopensWithData)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kiosk.db"));
    {
        LocalStore store;
        ASSERT_TRUE(store.open(path)) << store.errorString().toStdString();
        EXPECT_EQ(store.schemaVersion(), LocalStore::kSchemaVersion);
        ASSERT_TRUE(store.enqueue(holdAction(QStringLiteral("k1"))));
    }
    EXPECT_EQ(rawScalar(path, QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
    LocalStore again;
    ASSERT_TRUE(again.open(path));
    EXPECT_EQ(again.pendingCount(), 1);
    EXPECT_EQ(again.actionByKey(QStringLiteral("k1"))->path, QStringLiteral("/api/v1/shows/1/hold"));
}

TEST(LocalStore, RefusesANewerSchema)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kiosk.db"));
    {
        LocalStore store;
        ASSERT_TRUE(store.open(path));
    }
    rawScalar(path, QStringLiteral("PRAGMA user_version = 99"));
    LocalStore store;
    EXPECT_FALSE(store.open(path));
    EXPECT_TRUE(store.errorString().contains(QStringLiteral("newer")));
}

TEST(LocalStore, EnqueueIsIdempotentPerKey)
{
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    const auto first = store.enqueue(holdAction(QStringLiteral("same")));
    const auto second = store.enqueue(holdAction(QStringLiteral("same")));
    ASSERT_TRUE(first && second);
    EXPECT_EQ(*first, *second);
    EXPECT_EQ(store.pendingCount(), 1);
    NewAction bad = holdAction(QString());
    EXPECT_FALSE(store.enqueue(bad));
}

TEST(LocalStore, DueActionsAreGroupHeadsInOrderAndParkingUnblocksTheGroup)
{
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    const qint64 a1 = *store.enqueue(holdAction(QStringLiteral("a1"), QStringLiteral("order:A")));
    const qint64 b1 = *store.enqueue(holdAction(QStringLiteral("b1"), QStringLiteral("order:B")));
    const qint64 a2 = *store.enqueue(holdAction(QStringLiteral("a2"), QStringLiteral("order:A")));
    const auto now = QDateTime::currentDateTimeUtc().addSecs(1);

    auto ids = [&] {
        QList<qint64> out;
        for (const PendingAction &a : store.dueActions(now, 100))
            out.append(a.id);
        return out;
    };
    EXPECT_EQ(ids(), (QList<qint64>{a1, b1}));

    // A retry in the future keeps the whole group waiting (order within a group is kept).
    ASSERT_TRUE(store.scheduleRetry(a1, now.addSecs(60), QStringLiteral("network: reset")));
    EXPECT_EQ(ids(), (QList<qint64>{b1}));
    EXPECT_EQ(store.action(a1)->attempts, 1);
    EXPECT_EQ(store.action(a1)->lastError, QStringLiteral("network: reset"));
    ASSERT_TRUE(store.nextAttemptAt().has_value());

    // Parking the poison head lets the next action of its group through, with the reason kept.
    ASSERT_TRUE(store.park(a1, QStringLiteral("HTTP 404 show_not_found"), 404, "{}"));
    EXPECT_EQ(ids(), (QList<qint64>{b1, a2}));
    EXPECT_EQ(store.parkedCount(), 1);
    EXPECT_EQ(store.actions(ActionState::Parked).first().lastError, QStringLiteral("HTTP 404 show_not_found"));

    ASSERT_TRUE(store.markDone(b1, 200, "{\"hold_id\":\"x\"}"));
    EXPECT_EQ(store.action(b1)->state, ActionState::Done);
    EXPECT_EQ(store.action(b1)->resultBody, QByteArray("{\"hold_id\":\"x\"}"));
    EXPECT_EQ(store.pendingCount(), 1);

    ASSERT_TRUE(store.unpark(a1));
    EXPECT_EQ(store.parkedCount(), 0);
    EXPECT_EQ(ids(), (QList<qint64>{a1})); // a1 is again the head of order:A, ahead of a2
}

TEST(LocalStore, PaymentAndItsConfirmAreJournaledTogether)
{
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    PaymentRecord p{QStringLiteral("pi_1"), QStringLiteral("ord_1"), 1250, QStringLiteral("EUR"), QStringLiteral("approved"),
                    QStringLiteral("awaiting_confirm")};
    NewAction confirm = holdAction(QStringLiteral("pi_1"), QStringLiteral("order:ord_1"));
    ASSERT_TRUE(store.recordPayment(p, confirm));
    EXPECT_EQ(store.pendingCount(), 1);
    EXPECT_EQ(store.payment(QStringLiteral("pi_1"))->amountMinor, 1250);

    // A failing follow-up (no idempotency key) rolls the journal entry back too: all or nothing.
    PaymentRecord q = p;
    q.intentId = QStringLiteral("pi_2");
    EXPECT_FALSE(store.recordPayment(q, holdAction(QString())));
    EXPECT_FALSE(store.payment(QStringLiteral("pi_2")).has_value());

    ASSERT_TRUE(store.setPaymentState(QStringLiteral("pi_1"), QStringLiteral("confirmed"), QStringLiteral("ok"), QStringLiteral("17"),
                                      QStringLiteral("MQ-ABC")));
    const auto stored = store.payment(QStringLiteral("pi_1"));
    EXPECT_EQ(stored->state, QStringLiteral("confirmed"));
    EXPECT_EQ(stored->bookingRef, QStringLiteral("MQ-ABC"));
    EXPECT_EQ(store.payments().size(), 1);
}

TEST(LocalStore, TicketJournalCountsReprintsAndReconciliation)
{
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    TicketRecord t;
    t.ticketId = QStringLiteral("t-1");
    t.bookingRef = QStringLiteral("MQ-ABC");
    t.showId = 3;
    t.seatId = QStringLiteral("A1");
    t.qr = QStringLiteral("MQ1.x.y");
    TicketRecord u = t;
    u.ticketId = QStringLiteral("t-2");
    u.seatId = QStringLiteral("A2");
    ASSERT_TRUE(store.journalPrintedTickets({t, u}));
    ASSERT_TRUE(store.journalPrintedTickets({t})); // printed again
    ASSERT_TRUE(store.recordReprint(QStringLiteral("t-1")));
    EXPECT_FALSE(store.recordReprint(QStringLiteral("nope")));
    EXPECT_EQ(store.ticket(QStringLiteral("t-1"))->reprints, 2);
    EXPECT_EQ(store.ticketsByBookingRef(QStringLiteral("MQ-ABC")).size(), 2);
    EXPECT_EQ(store.ticket(QStringLiteral("t-2"))->reconciliation, QStringLiteral("unknown"));
    ASSERT_TRUE(store.setTicketReconciliation(QStringLiteral("t-2"), QStringLiteral("voided"), QStringLiteral("refunded")));
    EXPECT_EQ(store.ticket(QStringLiteral("t-2"))->reconciliation, QStringLiteral("voided"));
    // The CHECK constraint refuses a state that is not one of the three.
    EXPECT_FALSE(store.setTicketReconciliation(QStringLiteral("t-2"), QStringLiteral("maybe"), {}));
}

TEST(LocalStore, PrintJobsAndTheirTicketsSurviveReopenAndAFailedPrintJournalsNoTicket)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kiosk.db"));
    TicketRecord t;
    t.ticketId = QStringLiteral("t-1");
    t.bookingRef = QStringLiteral("MQABC1");
    t.showId = 3;
    t.seatId = QStringLiteral("A1");
    t.qr = QStringLiteral("MQ1.x.y");
    {
        LocalStore store;
        ASSERT_TRUE(store.open(path));
        PrintRecord failed;
        failed.bookingRef = QStringLiteral("MQABC1");
        failed.state = QStringLiteral("failed");
        failed.error = QStringLiteral("The printer is out of paper");
        failed.output = QStringLiteral("/dev/usb/lp0");
        failed.printData = QJsonObject{{QStringLiteral("booking_ref"), QStringLiteral("MQABC1")}};
        ASSERT_TRUE(store.recordPrint(failed, {}));
        EXPECT_TRUE(store.ticketsByBookingRef(QStringLiteral("MQABC1")).isEmpty()) << "nothing was printed";
        PrintRecord printed = failed;
        printed.state = QStringLiteral("printed");
        printed.error.clear();
        ASSERT_TRUE(store.recordPrint(printed, {t}));
        PrintRecord bad = printed;
        bad.state = QStringLiteral("maybe");
        EXPECT_FALSE(store.recordPrint(bad, {t})) << "CHECK refuses an unknown state";
        EXPECT_EQ(store.ticket(QStringLiteral("t-1"))->reprints, 0) << "the refused job rolled its tickets back";
    }
    LocalStore reopened;
    ASSERT_TRUE(reopened.open(path));
    const auto last = reopened.lastPrintOf(QStringLiteral("MQABC1"));
    ASSERT_TRUE(last);
    EXPECT_EQ(last->state, QStringLiteral("printed"));
    EXPECT_EQ(last->printData.value(QStringLiteral("booking_ref")).toString(), QStringLiteral("MQABC1"));
    const QList<PrintRecord> jobs = reopened.prints(10);
    ASSERT_EQ(jobs.size(), 2);
    EXPECT_EQ(jobs.last().error, QStringLiteral("The printer is out of paper"));
    EXPECT_EQ(reopened.ticketsByBookingRef(QStringLiteral("MQABC1")).size(), 1);
    EXPECT_FALSE(reopened.lastPrintOf(QStringLiteral("NOPE")));
}

TEST(LocalStore, UpgradesAVersionOneFileKeepingItsData)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kiosk.db"));
    {
        LocalStore store;
        ASSERT_TRUE(store.open(path));
        ASSERT_TRUE(store.enqueue(holdAction(QStringLiteral("old"))));
    }
    // What a kiosk that ran the first schema has on disk: no prints table (nor the later ones), user_version 1.
    for (const char *table : {"prints", "delegated_tickets", "device_delegations", "venue_delegations", "leases", "lease_requests", "offline_sales"})
        rawScalar(path, QStringLiteral("DROP TABLE %1").arg(QLatin1String(table)));
    rawScalar(path, QStringLiteral("PRAGMA user_version = 1"));
    LocalStore store;
    ASSERT_TRUE(store.open(path)) << store.errorString().toStdString();
    EXPECT_EQ(store.schemaVersion(), LocalStore::kSchemaVersion);
    EXPECT_EQ(store.pendingCount(), 1);
    PrintRecord job;
    job.bookingRef = QStringLiteral("MQABC2");
    job.state = QStringLiteral("printed");
    EXPECT_TRUE(store.recordPrint(job));
}

TEST(LocalStore, CachesKeysRevocationsEventsAndScans)
{
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    ASSERT_TRUE(store.putCache(QStringLiteral("seatmap:1"), "{\"seats\":[]}"));
    ASSERT_TRUE(store.putCache(QStringLiteral("seatmap:1"), "{\"seats\":[1]}"));
    EXPECT_EQ(*store.cached(QStringLiteral("seatmap:1")), QByteArray("{\"seats\":[1]}"));
    EXPECT_FALSE(store.cached(QStringLiteral("nope")).has_value());

    ASSERT_TRUE(store.replacePublicKeys({{7, QByteArray(32, 'k'), 1, {}}}));
    EXPECT_EQ(store.publicKeysById().value(7), QByteArray(32, 'k'));

    ASSERT_TRUE(store.addRevocations({{QStringLiteral("t-9"), QDateTime::currentDateTimeUtc(), QStringLiteral("refunded")}}, QStringLiteral("5")));
    EXPECT_EQ(store.revocation(QStringLiteral("t-9"))->reason, QStringLiteral("refunded"));
    EXPECT_EQ(store.cursor(QStringLiteral("revocations")), QStringLiteral("5"));

    int added = -1;
    FeedEvent e{QStringLiteral("e1"), QStringLiteral("hold.placed"), QStringLiteral("h1"), {}, QStringLiteral("2026-01-01T00:00:00Z")};
    ASSERT_TRUE(store.storeEvents({e}, QStringLiteral("1"), &added));
    EXPECT_EQ(added, 1);
    ASSERT_TRUE(store.storeEvents({e}, QStringLiteral("1"), &added)); // delivered twice: stored once
    EXPECT_EQ(added, 0);
    EXPECT_EQ(store.eventCount(), 1);
    EXPECT_EQ(store.cursor(QStringLiteral("events")), QStringLiteral("1"));

    CheckinScan scan;
    scan.nonce = QStringLiteral("n1");
    scan.qr = QStringLiteral("MQ1.a.b");
    scan.scannedAt = QDateTime::fromMSecsSinceEpoch(1'700'000'000'123, Qt::UTC);
    scan.localResult = QStringLiteral("ok");
    NewAction upload = holdAction(QStringLiteral("n1"));
    upload.kind = QStringLiteral("checkin");
    ASSERT_TRUE(store.recordScan(scan, upload));
    EXPECT_FALSE(store.recordScan(scan, std::nullopt)); // one nonce, one scan
    ASSERT_TRUE(store.setScanResult(QStringLiteral("n1"), QStringLiteral("uploaded"), QStringLiteral("already_redeemed"), "{}"));
    const auto stored = store.scan(QStringLiteral("n1"));
    EXPECT_EQ(stored->scannedAt, scan.scannedAt);
    EXPECT_EQ(stored->serverResult, QStringLiteral("already_redeemed"));
    EXPECT_EQ(store.pendingCount(), 1);
}

TEST(LocalStore, EachThreadUsesItsOwnConnection)
{
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    constexpr int kThreads = 4;
    constexpr int kPerThread = 50;
    std::vector<std::unique_ptr<QThread>> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back(QThread::create([&store, &failures, t] {
            for (int i = 0; i < kPerThread; ++i) {
                if (!store.enqueue(holdAction(QStringLiteral("t%1-%2").arg(t).arg(i))))
                    ++failures;
            }
        }));
        threads.back()->start();
    }
    for (auto &thread : threads)
        thread->wait();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(store.pendingCount(), kThreads * kPerThread);
}
