// SPDX-License-Identifier: AGPL-3.0-or-later
// The device's own ticket-signing key and its delegations: real SQLite, a real key file, the real codec.
#include "sync/deviceticketsigner.h"
#include "sync/localstore.h"

#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

#include <sys/stat.h>

using namespace marquee;
using namespace marquee::sync;

namespace {

constexpr qint64 kVenue = 1;
constexpr quint32 kVenueKeyId = 42;

struct Till {
    QTemporaryDir dir;
    LocalStore store;
    TicketKeyPair venue = *TicketCodec::generateKeyPair();
    Till()
    {
        EXPECT_TRUE(store.open(dir.filePath(QStringLiteral("till.db"))));
        EXPECT_TRUE(store.replacePublicKeys({{kVenueKeyId, venue.publicKey, kVenue, {}}}));
        EXPECT_TRUE(store.setDeviceVenue(kVenue));
    }
    /** @brief What the server signs for a lease of @p seats to the device key @p devicePublicKey. */
    TicketDelegation delegation(const QByteArray &devicePublicKey, const QStringList &seats = {QStringLiteral("A1"), QStringLiteral("A2")},
                                const QByteArray &signingKey = {}) const
    {
        const qint64 now = QDateTime::currentSecsSinceEpoch();
        TicketDelegation d;
        d.keyId = kVenueKeyId;
        d.delegationId = QUuid::createUuid();
        d.leaseId = QUuid::createUuid();
        d.deviceId = 5;
        d.showId = 9;
        d.devicePublicKey = devicePublicKey;
        d.seatIds = DelegationCodec::canonicalSeats(seats);
        d.validFrom = now - 3600;
        d.validUntil = now + 4 * 3600;
        d.sellUntil = now + 2 * 3600;
        EXPECT_TRUE(DelegationCodec::sign(d, signingKey.isEmpty() ? venue.privateKey : signingKey));
        return d;
    }
};

QString leaseOf(const TicketDelegation &d)
{
    return d.leaseId.toString(QUuid::WithoutBraces);
}

} // namespace

TEST(DeviceTicketSigner, CreatesItsKeyOnceInAPrivateFileAndKeepsIt)
{
    Till till;
    QString publicKey;
    {
        DeviceTicketSigner signer(till.store);
        ASSERT_TRUE(signer.open()) << signer.errorString().toStdString();
        publicKey = signer.publicKey();
        EXPECT_EQ(QByteArray::fromBase64(publicKey.toLatin1()).size(), TicketCodec::kKeyBytes);
        EXPECT_EQ(signer.keyPath(), till.store.path() + QStringLiteral(".device-key"));
        struct stat info {};
        ASSERT_EQ(::stat(QFile::encodeName(signer.keyPath()).constData(), &info), 0);
        EXPECT_EQ(info.st_mode & 0777, 0600u);
        EXPECT_EQ(info.st_size, TicketCodec::kKeyBytes);
    }
    DeviceTicketSigner again(till.store);
    ASSERT_TRUE(again.open());
    EXPECT_EQ(again.publicKey(), publicKey) << "the same key after a restart";
    // The private key is not in the SQLite journal (which may be copied for diagnostics).
    QFile db(till.store.path());
    ASSERT_TRUE(db.open(QIODevice::ReadOnly));
    QFile key(again.keyPath());
    ASSERT_TRUE(key.open(QIODevice::ReadOnly));
    EXPECT_FALSE(db.readAll().contains(key.readAll()));
}

TEST(DeviceTicketSigner, RefusesAKeyFileOthersCanReadOrOfTheWrongSize)
{
    Till till;
    {
        DeviceTicketSigner signer(till.store);
        ASSERT_TRUE(signer.open());
        ASSERT_EQ(::chmod(QFile::encodeName(signer.keyPath()).constData(), 0644), 0);
    }
    DeviceTicketSigner readable(till.store);
    EXPECT_FALSE(readable.open());
    EXPECT_TRUE(readable.errorString().contains(QStringLiteral("0600"))) << readable.errorString().toStdString();
    EXPECT_FALSE(readable.isOpen());
    EXPECT_EQ(readable.sign(QStringLiteral("x"), 9, QStringLiteral("A1")).refusal, SignRefusal::NoDeviceKey);

    ASSERT_EQ(::chmod(QFile::encodeName(readable.keyPath()).constData(), 0600), 0);
    QFile file(readable.keyPath());
    ASSERT_TRUE(file.open(QIODevice::Append));
    file.write("x");
    file.close();
    DeviceTicketSigner longer(till.store);
    EXPECT_FALSE(longer.open());
    EXPECT_TRUE(longer.errorString().contains(QStringLiteral("32-byte"))) << longer.errorString().toStdString();
}

TEST(DeviceTicketSigner, AcceptsOnlyAGenuineDelegationForItsOwnKey)
{
    Till till;
    DeviceTicketSigner signer(till.store);
    ASSERT_TRUE(signer.open());
    const TicketDelegation genuine = till.delegation(signer.publicKeyBytes());

    TicketDelegation forged = genuine;
    forged.seatIds.append(QStringLiteral("B9"));
    EXPECT_EQ(signer.accept(DelegationCodec::toJson(forged)).result, DelegationAcceptance::InvalidSignature);
    const TicketKeyPair stranger = *TicketCodec::generateKeyPair();
    EXPECT_EQ(signer.accept(DelegationCodec::toJson(till.delegation(signer.publicKeyBytes(), {QStringLiteral("A1")}, stranger.privateKey))).result,
              DelegationAcceptance::InvalidSignature);
    EXPECT_EQ(signer.accept(DelegationCodec::toJson(till.delegation(stranger.publicKey))).result, DelegationAcceptance::OtherDevice);
    QJsonObject broken = DelegationCodec::toJson(genuine);
    broken.remove(QStringLiteral("seat_ids"));
    EXPECT_EQ(signer.accept(broken).result, DelegationAcceptance::Malformed);
    EXPECT_EQ(signer.accept({}).result, DelegationAcceptance::Malformed);
    EXPECT_FALSE(signer.delegationForLease(leaseOf(forged)));

    // A key of another venue, or no venue known yet, vouches for nothing.
    ASSERT_TRUE(till.store.setDeviceVenue(2));
    EXPECT_EQ(signer.accept(DelegationCodec::toJson(genuine)).result, DelegationAcceptance::UnknownKey);
    ASSERT_TRUE(till.store.setDeviceVenue(0));
    EXPECT_EQ(signer.accept(DelegationCodec::toJson(genuine)).result, DelegationAcceptance::UnknownKey);
    ASSERT_TRUE(till.store.setDeviceVenue(kVenue));

    const DelegationAcceptOutcome accepted = signer.accept(DelegationCodec::toJson(genuine));
    ASSERT_TRUE(accepted.ok()) << accepted.message.toStdString();
    EXPECT_EQ(accepted.delegation, genuine);
    EXPECT_EQ(signer.delegationForLease(leaseOf(genuine)), genuine);
    EXPECT_TRUE(signer.accept(DelegationCodec::toJson(genuine)).ok()) << "accepting the same delegation again";
}

TEST(DeviceTicketSigner, SignsOnlyTheDelegatedSeatsOfItsShowWithinTheWindow)
{
    Till till;
    DeviceTicketSigner signer(till.store);
    ASSERT_TRUE(signer.open());
    const TicketDelegation d = till.delegation(signer.publicKeyBytes(), {QStringLiteral("A2"), QStringLiteral("A1")});
    ASSERT_TRUE(signer.accept(DelegationCodec::toJson(d)).ok());
    const QString lease = leaseOf(d);

    const SignOutcome ticket = signer.sign(lease, 9, QStringLiteral("A1"));
    ASSERT_TRUE(ticket.ok()) << ticket.message.toStdString();
    EXPECT_TRUE(ticket.qr.startsWith(QStringLiteral("MQ2.")));
    EXPECT_FALSE(ticket.existing);
    EXPECT_EQ(ticket.payload.delegationId, d.delegationId);
    EXPECT_EQ(ticket.payload.seatId, QStringLiteral("A1"));
    EXPECT_EQ(ticket.payload.validFrom, d.validFrom);
    EXPECT_EQ(ticket.payload.validUntil, d.validUntil);
    EXPECT_EQ(ticket.ticketId, ticket.payload.ticketId.toString(QUuid::WithoutBraces));
    // What a door does: the device key of the delegation verifies it, and the delegation covers it.
    const TicketVerification verified = TicketCodec::verify(ticket.qr, {}, {{d.delegationId, d.devicePublicKey}});
    EXPECT_EQ(verified.result, TicketCheck::Ok);
    EXPECT_EQ(DelegationCodec::covers(d, verified.payload), DelegationCover::Covered);

    EXPECT_EQ(signer.sign(lease, 9, QStringLiteral("A3")).refusal, SignRefusal::SeatNotDelegated);
    EXPECT_EQ(signer.sign(lease, 10, QStringLiteral("A2")).refusal, SignRefusal::OtherShow);
    EXPECT_EQ(signer.sign(lease, 9, QStringLiteral("A2"), d.validFrom - 1, d.validUntil).refusal, SignRefusal::OutsideWindow);
    EXPECT_EQ(signer.sign(lease, 9, QStringLiteral("A2"), d.validFrom, d.validUntil + 1).refusal, SignRefusal::OutsideWindow);
    EXPECT_EQ(signer.sign(lease, 9, QStringLiteral("A2"), d.validUntil, d.validFrom).refusal, SignRefusal::InvalidRequest);
    EXPECT_EQ(signer.sign(lease, 9, QString()).refusal, SignRefusal::InvalidRequest);
    EXPECT_EQ(signer.sign(lease, 9, QStringLiteral("A2"), 0, 0, QDateTime::fromSecsSinceEpoch(d.sellUntil, Qt::UTC)).refusal,
              SignRefusal::SaleWindowOver);
    EXPECT_EQ(signer.sign(QUuid::createUuid().toString(QUuid::WithoutBraces), 9, QStringLiteral("A2")).refusal, SignRefusal::NoDelegation);

    const SignOutcome narrower = signer.sign(lease, 9, QStringLiteral("A2"), d.validFrom + 60, d.validUntil - 60);
    ASSERT_TRUE(narrower.ok()) << narrower.message.toStdString();
    EXPECT_EQ(narrower.payload.validFrom, d.validFrom + 60);
    EXPECT_NE(narrower.ticketId, ticket.ticketId);
    EXPECT_EQ(till.store.delegatedTickets(d.delegationId.toString(QUuid::WithoutBraces)).size(), 2);
}

TEST(DeviceTicketSigner, ASeatIsSignedOnceEvenAcrossARestart)
{
    Till till;
    TicketDelegation d;
    SignOutcome first;
    {
        DeviceTicketSigner signer(till.store);
        ASSERT_TRUE(signer.open());
        d = till.delegation(signer.publicKeyBytes());
        ASSERT_TRUE(signer.accept(DelegationCodec::toJson(d)).ok());
        first = signer.sign(leaseOf(d), 9, QStringLiteral("A1"));
        ASSERT_TRUE(first.ok());
    }
    DeviceTicketSigner restarted(till.store);
    ASSERT_TRUE(restarted.open());
    const SignOutcome again = restarted.sign(leaseOf(d), 9, QStringLiteral("A1"));
    ASSERT_TRUE(again.ok()) << again.message.toStdString();
    EXPECT_TRUE(again.existing);
    EXPECT_EQ(again.ticketId, first.ticketId);
    EXPECT_EQ(again.qr, first.qr);
    EXPECT_EQ(again.payload, first.payload);
}

TEST(DeviceTicketSigner, SignsNothingMoreOnceTheLeaseIsRevoked)
{
    Till till;
    DeviceTicketSigner signer(till.store);
    ASSERT_TRUE(signer.open());
    const TicketDelegation d = till.delegation(signer.publicKeyBytes());
    ASSERT_TRUE(signer.accept(DelegationCodec::toJson(d)).ok());
    ASSERT_TRUE(signer.sign(leaseOf(d), 9, QStringLiteral("A1")).ok());
    EXPECT_FALSE(signer.isRevoked(leaseOf(d)));
    ASSERT_TRUE(signer.setRevoked(leaseOf(d)));
    EXPECT_TRUE(signer.isRevoked(leaseOf(d)));
    EXPECT_EQ(signer.sign(leaseOf(d), 9, QStringLiteral("A2")).refusal, SignRefusal::DelegationRevoked);
    EXPECT_EQ(signer.sign(leaseOf(d), 9, QStringLiteral("A1")).refusal, SignRefusal::DelegationRevoked);
    // Accepting the same delegation again does not lift the revocation.
    EXPECT_TRUE(signer.accept(DelegationCodec::toJson(d)).ok());
    EXPECT_TRUE(signer.isRevoked(leaseOf(d)));
}

TEST(DeviceTicketSigner, ANewKeyFileCannotSignUnderTheOldKeysDelegation)
{
    Till till;
    TicketDelegation d;
    QString keyPath;
    {
        DeviceTicketSigner signer(till.store);
        ASSERT_TRUE(signer.open());
        d = till.delegation(signer.publicKeyBytes());
        ASSERT_TRUE(signer.accept(DelegationCodec::toJson(d)).ok());
        keyPath = signer.keyPath();
    }
    ASSERT_TRUE(QFile::remove(keyPath));
    DeviceTicketSigner replaced(till.store);
    ASSERT_TRUE(replaced.open());
    EXPECT_NE(replaced.publicKeyBytes(), d.devicePublicKey);
    EXPECT_EQ(replaced.sign(leaseOf(d), 9, QStringLiteral("A1")).refusal, SignRefusal::OtherDevice);
}
