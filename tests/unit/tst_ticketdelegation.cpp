// SPDX-License-Identifier: AGPL-3.0-or-later
// Delegated tickets: the server-signed delegation (a device key, a show, a seat list, a window) and the MQ2
// ticket a device signs under it (docs/tickets.md, "Delegations" and "Delegated tickets").
#include "core/ticketcodec.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtEndian>
#include <algorithm>
#include <functional>
#include <gtest/gtest.h>

using namespace marquee;

namespace {
// RFC 8032 section 7.1 test 1 (the venue's key in these tests) and test 2 (the device's).
const QByteArray kVenueSecret = QByteArray::fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const QByteArray kDeviceSecret = QByteArray::fromHex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");

QByteArray venuePublic()
{
    return TicketCodec::publicKeyOf(kVenueSecret);
}
QByteArray devicePublic()
{
    return TicketCodec::publicKeyOf(kDeviceSecret);
}

TicketDelegation sampleDelegation()
{
    TicketDelegation d;
    d.keyId = 7;
    d.delegationId = QUuid::fromString(QStringLiteral("1b4e28ba-2fa1-41d2-883f-0016d3cca427"));
    d.leaseId = QUuid::fromString(QStringLiteral("6fa459ea-ee8a-4ca4-894e-db77e160355e"));
    d.deviceId = 3;
    d.showId = 4242;
    d.devicePublicKey = devicePublic();
    d.seatIds = {QStringLiteral("H12"), QStringLiteral("H13")};
    d.validFrom = 1767225600;  // 2026-01-01T00:00:00Z
    d.validUntil = 1767240000; // 2026-01-01T04:00:00Z
    d.sellUntil = 1767238200;  // 2026-01-01T03:30:00Z
    return d;
}

TicketDelegation signedDelegation()
{
    TicketDelegation d = sampleDelegation();
    EXPECT_TRUE(DelegationCodec::sign(d, kVenueSecret));
    return d;
}

TicketPayload delegatedTicket(const QString &seat = QStringLiteral("H12"))
{
    TicketPayload p;
    p.delegationId = sampleDelegation().delegationId;
    p.ticketId = QUuid::fromString(QStringLiteral("0f8fad5b-d9cb-469f-a165-70867728950e"));
    p.showId = 4242;
    p.seatId = seat;
    p.validFrom = 1767225600;
    p.validUntil = 1767240000;
    return p;
}

QString withPayload(const QByteArray &payload, const QByteArray &privateKey, const char *prefix = "MQ2.")
{
    return QString::fromLatin1(prefix) + QString::fromLatin1(TicketCodec::toBase64Url(payload)) + QLatin1Char('.')
           + QString::fromLatin1(TicketCodec::toBase64Url(TicketCodec::signBytes(payload, privateKey)));
}
} // namespace

TEST(TicketDelegation, DelegationLayoutIsExactlyAsDocumented)
{
    // docs/tickets.md, "Delegations", byte by byte.
    const QByteArray expected = QByteArray::fromHex("4d514431"                          // "MQD1"
                                                    "00000007"                          // venue key id
                                                    "1b4e28ba2fa141d2883f0016d3cca427"  // delegation id
                                                    "6fa459eaee8a4ca4894edb77e160355e"  // lease id
                                                    "0000000000000003"                  // device id
                                                    "0000000000001092"                  // show id 4242
                                                    "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c" // device key
                                                    "000000006955b900"                  // valid from
                                                    "000000006955f140"                  // valid until
                                                    "000000006955ea38"                  // sell until
                                                    "0002"                              // two seats
                                                    "03483132"                          // "H12"
                                                    "03483133");                        // "H13"
    EXPECT_EQ(DelegationCodec::encode(sampleDelegation()).toHex(), expected.toHex());
    EXPECT_EQ(DelegationCodec::encode(sampleDelegation()).size(), 114 + 4 + 4);
    const auto decoded = DelegationCodec::decode(expected);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(*decoded, sampleDelegation());
}

TEST(TicketDelegation, DelegatedPayloadLayoutIsExactlyAsDocumented)
{
    // docs/tickets.md, "Delegated tickets", byte by byte.
    const QByteArray expected = QByteArray::fromHex("02"                                // format version 2
                                                    "1b4e28ba2fa141d2883f0016d3cca427"  // delegation id
                                                    "0f8fad5bd9cb469fa16570867728950e"  // ticket id
                                                    "0000000000001092"                  // show id 4242
                                                    "03" "483132"                       // seat "H12"
                                                    "000000006955b900"                  // valid from
                                                    "000000006955f140");                // valid until
    EXPECT_EQ(TicketCodec::encodePayload(delegatedTicket()).toHex(), expected.toHex());
    EXPECT_EQ(expected.size(), 58 + 3);
    EXPECT_EQ(TicketCodec::decodePayload(expected), delegatedTicket());
}

// docs/tickets.md's worked example, signed outside the codec (Python's cryptography): the two agree byte for byte.
TEST(TicketDelegation, KnownAnswerDelegatedTicket)
{
    const QString documented = QStringLiteral(
        "MQ2.AhtOKLovoUHSiD8AFtPMpCcPj61b2ctGn6FlcIZ3KJUOAAAAAAAAEJIDSDEyAAAAAGlVuQAAAAAAaVXxQA."
        "pej4OtzUzDmo-ObCYirps7HOsp4YdnOLwzWNA9mwEgM_ulTEA-Ok5rDOP7g9LKZ2TGkfrZSI5N0UoYM6gZ8PBQ");
    EXPECT_EQ(TicketCodec::sign(delegatedTicket(), kDeviceSecret), documented);
}

// The fuzz target's delegation seeds (tests/fuzz/make-seeds.py writes them outside the codec) are what the codec
// reads: a delegated ticket that verifies under the seed delegation, and a delegation the fuzz venue key signed.
TEST(TicketDelegation, FuzzSeedsAreWhatTheCodecReads)
{
    const auto read = [](const char *name) {
        QFile file(QStringLiteral(MARQUEE_SOURCE_DIR "/tests/fuzz/corpus/fuzz_ticketcodec/") + QLatin1String(name));
        EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << name;
        return file.readAll();
    };
    QByteArray venueSeed, deviceSeed;
    for (char c = 1; c <= 32; ++c)
        venueSeed.append(c);
    for (char c = 2; c <= 33; ++c)
        deviceSeed.append(c);
    const auto delegation = DelegationCodec::fromJson(QJsonDocument::fromJson(read("delegation-json")).object());
    ASSERT_TRUE(delegation);
    EXPECT_EQ(DelegationCodec::verify(*delegation, {{7u, TicketCodec::publicKeyOf(venueSeed)}}), TicketCheck::Ok);
    EXPECT_EQ(delegation->devicePublicKey, TicketCodec::publicKeyOf(deviceSeed));
    EXPECT_EQ(DelegationCodec::encode(*delegation), read("delegation"));
    const DelegatedTicketCheck ticket = DelegationCodec::checkTicket(*delegation, QString::fromLatin1(read("delegated")));
    EXPECT_TRUE(ticket.ok());
    EXPECT_EQ(ticket.payload.seatId, QStringLiteral("H16"));
    EXPECT_EQ(TicketCodec::sign(ticket.payload, deviceSeed), QString::fromLatin1(read("delegated")));
}

TEST(TicketDelegation, SignedDelegationVerifiesAndRoundTripsThroughJson)
{
    const TicketDelegation d = signedDelegation();
    ASSERT_EQ(d.signature.size(), TicketCodec::kSignatureBytes);
    EXPECT_EQ(DelegationCodec::verify(d, {{7u, venuePublic()}}), TicketCheck::Ok);
    EXPECT_EQ(DelegationCodec::verify(d, {{8u, venuePublic()}}), TicketCheck::UnknownKey);
    EXPECT_EQ(DelegationCodec::verify(d, {{7u, devicePublic()}}), TicketCheck::InvalidSignature);

    const QJsonObject json = DelegationCodec::toJson(d);
    EXPECT_EQ(json.value(QStringLiteral("valid_from")).toString(), QStringLiteral("2026-01-01T00:00:00.000Z"));
    EXPECT_EQ(json.value(QStringLiteral("sell_until")).toString(), QStringLiteral("2026-01-01T03:30:00.000Z"));
    EXPECT_EQ(json.value(QStringLiteral("device_public_key")).toString(), QString::fromLatin1(devicePublic().toBase64()));
    const auto back = DelegationCodec::fromJson(json);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, d);
    EXPECT_EQ(DelegationCodec::verify(*back, {{7u, venuePublic()}}), TicketCheck::Ok);
}

TEST(TicketDelegation, AnyAlteredFieldBreaksTheVenueSignature)
{
    const TicketDelegation genuine = signedDelegation();
    const QHash<quint32, QByteArray> keys{{7u, venuePublic()}};
    const std::function<void(TicketDelegation &)> alterations[] = {
        [](TicketDelegation &d) { d.seatIds.append(QStringLiteral("H14")); },
        [](TicketDelegation &d) { d.seatIds = {QStringLiteral("A1"), QStringLiteral("H12")}; },
        [](TicketDelegation &d) { d.showId = 4243; },
        [](TicketDelegation &d) { d.deviceId = 4; },
        [](TicketDelegation &d) { d.devicePublicKey = venuePublic(); },
        [](TicketDelegation &d) { d.validUntil += 3600; },
        [](TicketDelegation &d) { d.validFrom -= 1; },
        [](TicketDelegation &d) { d.sellUntil += 60; },
        [](TicketDelegation &d) { d.leaseId = QUuid::createUuid(); },
        [](TicketDelegation &d) { d.delegationId = QUuid::createUuid(); },
    };
    for (const auto &alter : alterations) {
        TicketDelegation forged = genuine;
        alter(forged);
        EXPECT_EQ(DelegationCodec::verify(forged, keys), TicketCheck::InvalidSignature);
    }
    TicketDelegation resigned = genuine;
    resigned.seatIds.append(QStringLiteral("H14"));
    ASSERT_TRUE(DelegationCodec::sign(resigned, kDeviceSecret)); // signed by a key that is not the venue's
    EXPECT_EQ(DelegationCodec::verify(resigned, keys), TicketCheck::InvalidSignature);
}

TEST(TicketDelegation, OutOfRangeOrNonCanonicalDelegationsAreNotEncoded)
{
    const std::function<void(TicketDelegation &)> invalid[] = {
        [](TicketDelegation &d) { d.keyId = 0; },
        [](TicketDelegation &d) { d.delegationId = QUuid(); },
        [](TicketDelegation &d) { d.leaseId = QUuid(); },
        [](TicketDelegation &d) { d.deviceId = 0; },
        [](TicketDelegation &d) { d.showId = -1; },
        [](TicketDelegation &d) { d.devicePublicKey.chop(1); },
        [](TicketDelegation &d) { d.validUntil = d.validFrom; },
        [](TicketDelegation &d) { d.sellUntil = 0; },
        [](TicketDelegation &d) { d.seatIds.clear(); },
        [](TicketDelegation &d) { d.seatIds = {QStringLiteral("H13"), QStringLiteral("H12")}; },   // not in order
        [](TicketDelegation &d) { d.seatIds = {QStringLiteral("H12"), QStringLiteral("H12")}; },   // duplicate
        [](TicketDelegation &d) { d.seatIds = {QString()}; },
        [](TicketDelegation &d) { d.seatIds = {QString(65, QLatin1Char('S'))}; },
        [](TicketDelegation &d) {
            d.seatIds.clear();
            for (int i = 0; i < DelegationCodec::kMaxSeats + 1; ++i)
                d.seatIds.append(QStringLiteral("S%1").arg(i, 5, 10, QLatin1Char('0')));
        },
    };
    for (const auto &alter : invalid) {
        TicketDelegation d = sampleDelegation();
        alter(d);
        EXPECT_TRUE(DelegationCodec::encode(d).isEmpty());
        EXPECT_FALSE(DelegationCodec::sign(d, kVenueSecret));
        d.signature = QByteArray(64, 's');
        EXPECT_EQ(DelegationCodec::verify(d, {{7u, venuePublic()}}), TicketCheck::Malformed);
    }
    TicketDelegation most = sampleDelegation();
    most.seatIds.clear();
    for (int i = 0; i < DelegationCodec::kMaxSeats; ++i)
        most.seatIds.append(QStringLiteral("S%1").arg(i, 5, 10, QLatin1Char('0')));
    EXPECT_FALSE(DelegationCodec::encode(most).isEmpty());
    EXPECT_EQ(DelegationCodec::canonicalSeats({QStringLiteral("b"), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("Z")}),
              (QStringList{QStringLiteral("Z"), QStringLiteral("a"), QStringLiteral("b")}));
}

TEST(TicketDelegation, MalformedDelegationBytesAreRefused)
{
    const QByteArray good = DelegationCodec::encode(sampleDelegation());
    for (qsizetype n = 0; n < good.size(); ++n)
        EXPECT_FALSE(DelegationCodec::decode(good.left(n))) << n;
    EXPECT_FALSE(DelegationCodec::decode(good + 'x'));
    QByteArray magic = good;
    magic[3] = '2';
    EXPECT_FALSE(DelegationCodec::decode(magic));
    QByteArray moreSeats = good;
    qToBigEndian<quint16>(3, moreSeats.data() + 112);
    EXPECT_FALSE(DelegationCodec::decode(moreSeats));
    QByteArray badUtf8 = good;
    badUtf8[good.size() - 1] = char(0xff);
    EXPECT_FALSE(DelegationCodec::decode(badUtf8));
    // A ticket payload is never a delegation, and a delegation never a ticket payload: a venue signature over one
    // cannot be passed off as one over the other.
    EXPECT_FALSE(DelegationCodec::decode(TicketCodec::encodePayload(delegatedTicket())));
    EXPECT_FALSE(TicketCodec::decodePayload(good));
}

TEST(TicketDelegation, MalformedDelegationJsonIsRefused)
{
    const QJsonObject good = DelegationCodec::toJson(signedDelegation());
    ASSERT_TRUE(DelegationCodec::fromJson(good));
    const QStringList fields = good.keys();
    for (const QString &field : fields) {
        QJsonObject missing = good;
        missing.remove(field);
        EXPECT_FALSE(DelegationCodec::fromJson(missing)) << field.toStdString();
        QJsonObject wrongType = good;
        wrongType.insert(field, QJsonValue(true));
        EXPECT_FALSE(DelegationCodec::fromJson(wrongType)) << field.toStdString();
    }
    const QList<std::pair<QString, QJsonValue>> bad = {
        {QStringLiteral("delegation_id"), QStringLiteral("{1b4e28ba-2fa1-41d2-883f-0016d3cca427}")},
        {QStringLiteral("delegation_id"), QStringLiteral("1B4E28BA-2FA1-41D2-883F-0016D3CCA427")},
        {QStringLiteral("device_id"), 0},
        {QStringLiteral("device_id"), 3.5},
        {QStringLiteral("key_id"), 4294967296.0},
        {QStringLiteral("device_public_key"), QString::fromLatin1(devicePublic().toBase64(QByteArray::Base64UrlEncoding))},
        {QStringLiteral("device_public_key"), QString::fromLatin1(devicePublic().left(31).toBase64())},
        {QStringLiteral("signature"), QStringLiteral("AAAA")},
        {QStringLiteral("valid_from"), QStringLiteral("2026-01-01T00:00:00.500Z")},
        {QStringLiteral("valid_from"), QStringLiteral("2026-01-01T00:00:00")},
        {QStringLiteral("valid_until"), QStringLiteral("2025-12-31T23:00:00Z")},
        {QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("H13"), QStringLiteral("H12")}},
        {QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("H12"), 13}},
        {QStringLiteral("seat_ids"), QJsonArray{}},
    };
    for (const auto &[field, value] : bad) {
        QJsonObject altered = good;
        altered.insert(field, value);
        EXPECT_FALSE(DelegationCodec::fromJson(altered)) << field.toStdString();
    }
}

TEST(TicketDelegation, DelegatedTicketRoundTripsAndVerifiesWithTheDeviceKey)
{
    const QString qr = TicketCodec::sign(delegatedTicket(), kDeviceSecret);
    ASSERT_TRUE(qr.startsWith(QStringLiteral("MQ2.")));
    const QHash<QUuid, QByteArray> devices{{sampleDelegation().delegationId, devicePublic()}};
    const TicketVerification ok = TicketCodec::verify(qr, {}, devices);
    EXPECT_EQ(ok.result, TicketCheck::Ok);
    EXPECT_EQ(ok.payload, delegatedTicket());
    EXPECT_TRUE(ok.payload.isDelegated());
    EXPECT_EQ(ok.payload.keyId, 0u);

    // Venue keys do not vouch for a device-signed ticket, and an unknown delegation is its own answer.
    EXPECT_EQ(TicketCodec::verify(qr, {{7u, venuePublic()}}).result, TicketCheck::UnknownDelegation);
    EXPECT_EQ(TicketCodec::verify(qr, {{7u, venuePublic()}}, {{QUuid::createUuid(), devicePublic()}}).result, TicketCheck::UnknownDelegation);
    // Signed by another key than the delegation's device key: a forgery.
    EXPECT_EQ(TicketCodec::verify(TicketCodec::sign(delegatedTicket(), kVenueSecret), {}, devices).result, TicketCheck::InvalidSignature);
    // Every bit of the payload is covered by the signature.
    const QByteArray payload = TicketCodec::encodePayload(delegatedTicket());
    const QByteArray signature = *TicketCodec::fromBase64Url(qr.split(QLatin1Char('.'))[2].toLatin1());
    for (int i = 0; i < payload.size() * 8; ++i) {
        QByteArray flipped = payload;
        flipped[i / 8] = char(flipped[i / 8] ^ (1 << (i % 8)));
        const QString altered = QStringLiteral("MQ2.%1.%2").arg(QString::fromLatin1(TicketCodec::toBase64Url(flipped)),
                                                                QString::fromLatin1(TicketCodec::toBase64Url(signature)));
        EXPECT_NE(TicketCodec::verify(altered, {}, devices).result, TicketCheck::Ok) << "bit " << i;
    }
    // The venue ticket API is unchanged: an MQ1 ticket still verifies through both overloads.
    TicketPayload venueTicket = delegatedTicket();
    venueTicket.delegationId = QUuid();
    venueTicket.keyId = 7;
    const QString mq1 = TicketCodec::sign(venueTicket, kVenueSecret);
    ASSERT_TRUE(mq1.startsWith(QStringLiteral("MQ1.")));
    EXPECT_EQ(TicketCodec::verify(mq1, {{7u, venuePublic()}}, devices).result, TicketCheck::Ok);
    EXPECT_EQ(TicketCodec::verify(mq1, {{7u, venuePublic()}}).result, TicketCheck::Ok);
}

TEST(TicketDelegation, MalformedDelegatedTicketsAreRefused)
{
    const QString qr = TicketCodec::sign(delegatedTicket(), kDeviceSecret);
    const QHash<QUuid, QByteArray> devices{{sampleDelegation().delegationId, devicePublic()}};
    ASSERT_EQ(TicketCodec::verify(qr, {}, devices).result, TicketCheck::Ok);
    for (qsizetype n = 0; n < qr.size(); ++n)
        EXPECT_EQ(TicketCodec::verify(qr.left(n), {}, devices).result, TicketCheck::Malformed) << n;
    const QByteArray payload = TicketCodec::encodePayload(delegatedTicket());
    const QStringList garbage = {
        QStringLiteral("MQ1") + qr.mid(3),                  // a delegated payload under the venue prefix
        QStringLiteral("mq2") + qr.mid(3),
        QStringLiteral("MQ3") + qr.mid(3),
        qr + QStringLiteral(".AAAA"),
        qr + QStringLiteral("="),
        QString(qr).replace(4, 1, QStringLiteral("+")),
        withPayload(payload + "x", kDeviceSecret),          // trailing byte
        withPayload(payload.left(payload.size() - 1), kDeviceSecret),
    };
    for (const QString &text : garbage)
        EXPECT_EQ(TicketCodec::verify(text, {}, devices).result, TicketCheck::Malformed) << text.toStdString();

    // A venue payload (version 1) under the MQ2 prefix, and fields a device could not have signed.
    TicketPayload venueTicket = delegatedTicket();
    venueTicket.delegationId = QUuid();
    venueTicket.keyId = 7;
    EXPECT_EQ(TicketCodec::verify(withPayload(TicketCodec::encodePayload(venueTicket), kDeviceSecret), {{7u, devicePublic()}}, devices).result,
              TicketCheck::Malformed);
    QByteArray nullTicketId = payload;
    std::fill(nullTicketId.begin() + 17, nullTicketId.begin() + 33, '\0');
    EXPECT_EQ(TicketCodec::verify(withPayload(nullTicketId, kDeviceSecret), {}, devices).result, TicketCheck::Malformed);
    QByteArray nullDelegation = payload;
    std::fill(nullDelegation.begin() + 1, nullDelegation.begin() + 17, '\0');
    EXPECT_EQ(TicketCodec::verify(withPayload(nullDelegation, kDeviceSecret), {}, {{QUuid(), devicePublic()}}).result, TicketCheck::Malformed);
    QByteArray seatLength = payload;
    seatLength[41] = 4;
    EXPECT_EQ(TicketCodec::verify(withPayload(seatLength, kDeviceSecret), {}, devices).result, TicketCheck::Malformed);

    // Both kinds name exactly one signer: a payload with a key id and a delegation id is not encoded.
    TicketPayload both = delegatedTicket();
    both.keyId = 7;
    EXPECT_TRUE(TicketCodec::encodePayload(both).isEmpty());
    EXPECT_TRUE(TicketCodec::sign(both, kDeviceSecret).isEmpty());
}

TEST(TicketDelegation, CoversOnlyItsShowSeatsAndWindow)
{
    const TicketDelegation d = signedDelegation();
    EXPECT_EQ(DelegationCodec::covers(d, delegatedTicket(QStringLiteral("H12"))), DelegationCover::Covered);
    EXPECT_EQ(DelegationCodec::covers(d, delegatedTicket(QStringLiteral("H13"))), DelegationCover::Covered);
    EXPECT_EQ(DelegationCodec::covers(d, delegatedTicket(QStringLiteral("H14"))), DelegationCover::SeatNotDelegated);
    EXPECT_EQ(DelegationCodec::covers(d, delegatedTicket(QStringLiteral("h12"))), DelegationCover::SeatNotDelegated);
    TicketPayload t = delegatedTicket();
    t.showId = 4243;
    EXPECT_EQ(DelegationCodec::covers(d, t), DelegationCover::OtherShow);
    t = delegatedTicket();
    t.validUntil = d.validUntil + 1;
    EXPECT_EQ(DelegationCodec::covers(d, t), DelegationCover::OutsideWindow);
    t = delegatedTicket();
    t.validFrom = d.validFrom - 1;
    EXPECT_EQ(DelegationCodec::covers(d, t), DelegationCover::OutsideWindow);
    t = delegatedTicket();
    t.validFrom = d.validFrom + 60;
    t.validUntil = d.validUntil - 60;
    EXPECT_EQ(DelegationCodec::covers(d, t), DelegationCover::Covered);
    t = delegatedTicket();
    t.delegationId = QUuid::createUuid();
    EXPECT_EQ(DelegationCodec::covers(d, t), DelegationCover::OtherDelegation);
    t = delegatedTicket();
    t.delegationId = QUuid();
    t.keyId = 7;
    EXPECT_EQ(DelegationCodec::covers(d, t), DelegationCover::OtherDelegation);
    EXPECT_EQ(toString(DelegationCover::SeatNotDelegated), QStringLiteral("seat_not_delegated"));
    EXPECT_EQ(toString(TicketCheck::UnknownDelegation), QStringLiteral("unknown_delegation"));
}
