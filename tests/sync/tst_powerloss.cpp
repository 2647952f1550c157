// SPDX-License-Identifier: AGPL-3.0-or-later
// Power loss: a VFS keeps unsynced writes in memory only; a copy of the real files is what a power cut leaves.
#include "powerlossvfs.h"
#include "sync/localstore.h"

#include <QJsonArray>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee::sync;
using namespace marquee::test;

TEST(PowerLoss, NoCommittedActionOrJournalEntryIsLost)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kiosk.db"));
    const QString cut = dir.filePath(QStringLiteral("after-cut.db"));
    PowerLossVfs vfs;
    QStringList keys;
    QStringList tickets;
    QStringList intents;
    {
        LocalStore store;
        ASSERT_TRUE(store.open(path)) << store.errorString().toStdString();
        for (int i = 0; i < 60; ++i) {
            NewAction a;
            a.kind = QStringLiteral("hold");
            a.path = QStringLiteral("/api/v1/shows/1/hold");
            a.body = QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A%1").arg(i)}}};
            a.idempotencyKey = QStringLiteral("key-%1").arg(i);
            ASSERT_TRUE(store.enqueue(a));
            keys.append(a.idempotencyKey);
            if (i % 3 == 0) {
                TicketRecord t;
                t.ticketId = QStringLiteral("ticket-%1").arg(i);
                t.bookingRef = QStringLiteral("MQ-%1").arg(i);
                t.showId = 1;
                t.seatId = QStringLiteral("A%1").arg(i);
                t.qr = QStringLiteral("MQ1.p.s");
                ASSERT_TRUE(store.journalPrintedTickets({t}));
                tickets.append(t.ticketId);
            }
            if (i % 5 == 0) {
                PaymentRecord p{QStringLiteral("pi-%1").arg(i), QStringLiteral("ord-%1").arg(i), 900 + i, QStringLiteral("EUR"),
                                QStringLiteral("approved"), QStringLiteral("awaiting_confirm")};
                ASSERT_TRUE(store.recordPayment(p));
                intents.append(p.intentId);
            }
            if (i % 7 == 0) {
                ASSERT_TRUE(store.markDone(store.actionByKey(a.idempotencyKey)->id, 200, "{}"));
            }
            if (i == 30) {
                // The lights go out mid-session, connection open, WAL not checkpointed: everything committed so far
                // must be in the durable files.
                ASSERT_TRUE(PowerLossVfs::powerCutCopy(path, cut));
                LocalStore after;
                ASSERT_TRUE(after.open(cut)) << after.errorString().toStdString();
                for (int k = 0; k <= 30; ++k)
                    EXPECT_TRUE(after.actionByKey(QStringLiteral("key-%1").arg(k)).has_value()) << k;
                EXPECT_EQ(after.tickets().size(), tickets.size());
                EXPECT_EQ(after.payments().size(), intents.size());
                EXPECT_EQ(after.action(after.actionByKey(QStringLiteral("key-28"))->id)->state, ActionState::Done);
            }
        }
        ASSERT_TRUE(PowerLossVfs::powerCutCopy(path, cut));
    }
    LocalStore after;
    ASSERT_TRUE(after.open(cut)) << after.errorString().toStdString();
    for (const QString &key : keys)
        EXPECT_TRUE(after.actionByKey(key).has_value()) << key.toStdString();
    for (const QString &ticket : tickets)
        EXPECT_TRUE(after.ticket(ticket).has_value()) << ticket.toStdString();
    for (const QString &intent : intents)
        EXPECT_TRUE(after.payment(intent).has_value()) << intent.toStdString();
    EXPECT_EQ(after.pendingCount(), keys.size() - 9); // 0, 7, ..., 56 were marked done
}

TEST(PowerLoss, TheVfsReallyDropsUnsyncedWrites)
{
    // The control experiment: without synchronous=FULL, commits that were never synced are gone after the cut,
    // so the test above would catch a store that did not sync.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("unsafe.db"));
    const QString cut = dir.filePath(QStringLiteral("unsafe-cut.db"));
    PowerLossVfs vfs;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("unsafe"));
        db.setDatabaseName(path);
        ASSERT_TRUE(db.open());
        QSqlQuery q(db);
        ASSERT_TRUE(q.exec(QStringLiteral("PRAGMA journal_mode=WAL")));
        ASSERT_TRUE(q.exec(QStringLiteral("PRAGMA synchronous=OFF")));
        ASSERT_TRUE(q.exec(QStringLiteral("CREATE TABLE t (x INTEGER)")));
        for (int i = 0; i < 100; ++i)
            ASSERT_TRUE(q.exec(QStringLiteral("INSERT INTO t VALUES (%1)").arg(i))) << q.lastError().text().toStdString();
        EXPECT_GT(PowerLossVfs::unsyncedBytes(), 0);
        ASSERT_TRUE(PowerLossVfs::powerCutCopy(path, cut));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("unsafe"));
    int survived = 0;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("cut"));
        db.setDatabaseName(cut);
        ASSERT_TRUE(db.open());
        QSqlQuery q(db);
        if (q.exec(QStringLiteral("SELECT count(*) FROM t")) && q.next())
            survived = q.value(0).toInt();
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("cut"));
    EXPECT_LT(survived, 100);
}
