// SPDX-License-Identifier: AGPL-3.0-or-later
#include "deviceticketsigner.h"
#include "synclog.h"

#include <QFile>
#include <QFileInfo>
#include <QUuid>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace marquee::sync {

QString toString(DelegationAcceptance acceptance)
{
    switch (acceptance) {
    case DelegationAcceptance::Accepted:
        return QStringLiteral("accepted");
    case DelegationAcceptance::Malformed:
        return QStringLiteral("malformed");
    case DelegationAcceptance::UnknownKey:
        return QStringLiteral("unknown_key");
    case DelegationAcceptance::InvalidSignature:
        return QStringLiteral("invalid_signature");
    case DelegationAcceptance::OtherDevice:
        return QStringLiteral("other_device");
    case DelegationAcceptance::NoDeviceKey:
        return QStringLiteral("no_device_key");
    case DelegationAcceptance::StoreFailed:
        return QStringLiteral("store_failed");
    }
    return QStringLiteral("malformed");
}

QString toString(SignRefusal refusal)
{
    switch (refusal) {
    case SignRefusal::None:
        return QStringLiteral("none");
    case SignRefusal::NoDeviceKey:
        return QStringLiteral("no_device_key");
    case SignRefusal::NoDelegation:
        return QStringLiteral("no_delegation");
    case SignRefusal::OtherDevice:
        return QStringLiteral("other_device");
    case SignRefusal::DelegationRevoked:
        return QStringLiteral("delegation_revoked");
    case SignRefusal::OtherShow:
        return QStringLiteral("other_show");
    case SignRefusal::SeatNotDelegated:
        return QStringLiteral("seat_not_delegated");
    case SignRefusal::OutsideWindow:
        return QStringLiteral("outside_window");
    case SignRefusal::SaleWindowOver:
        return QStringLiteral("sale_window_over");
    case SignRefusal::InvalidRequest:
        return QStringLiteral("invalid_request");
    case SignRefusal::StoreFailed:
        return QStringLiteral("store_failed");
    }
    return QStringLiteral("none");
}

namespace {
SignOutcome refused(SignRefusal refusal, const QString &message)
{
    SignOutcome outcome;
    outcome.refusal = refusal;
    outcome.message = message;
    return outcome;
}
DelegationAcceptOutcome notAccepted(DelegationAcceptance result, const QString &message, const TicketDelegation &delegation = {})
{
    DelegationAcceptOutcome outcome;
    outcome.result = result;
    outcome.message = message;
    outcome.delegation = delegation;
    return outcome;
}
QString idText(const QUuid &id)
{
    return id.toString(QUuid::WithoutBraces);
}
} // namespace

DeviceTicketSigner::DeviceTicketSigner(LocalStore &store)
    : m_store(store)
{
}

QString DeviceTicketSigner::keyPath() const
{
    return m_store.path() + QStringLiteral(".device-key");
}

QString DeviceTicketSigner::publicKey() const
{
    return QString::fromLatin1(m_publicKey.toBase64());
}

bool DeviceTicketSigner::open()
{
    m_privateKey.clear();
    m_publicKey.clear();
    m_error.clear();
    if (!m_store.isOpen()) {
        m_error = QStringLiteral("the local store is not open");
        return false;
    }
    return loadOrCreateKey();
}

bool DeviceTicketSigner::loadOrCreateKey()
{
    const QString path = keyPath();
    const QByteArray native = QFile::encodeName(path);
#ifdef Q_OS_UNIX
    if (!QFileInfo::exists(path)) {
        const auto pair = TicketCodec::generateKeyPair();
        if (!pair) {
            m_error = QStringLiteral("could not create a device key (no random bytes)");
            return false;
        }
        // Written completely to a private temporary file, then linked to its name: link() never replaces an
        // existing file, so of two processes starting at once one key wins and the other reads it.
        const QByteArray temporary = native + ".new-" + QUuid::createUuid().toString(QUuid::Id128).toLatin1();
        const int fd = ::open(temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            m_error = QStringLiteral("cannot create %1: %2").arg(QString::fromLocal8Bit(temporary), QString::fromLocal8Bit(strerror(errno)));
            return false;
        }
        const bool written = ::write(fd, pair->privateKey.constData(), size_t(pair->privateKey.size())) == pair->privateKey.size()
                             && ::fsync(fd) == 0;
        ::close(fd);
        const bool linked = written && (::link(temporary.constData(), native.constData()) == 0 || errno == EEXIST);
        ::unlink(temporary.constData());
        if (!linked) {
            m_error = QStringLiteral("cannot write the device key %1").arg(path);
            return false;
        }
        const QByteArray directory = QFile::encodeName(QFileInfo(path).absolutePath());
        const int dirFd = ::open(directory.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirFd >= 0) {
            ::fsync(dirFd);
            ::close(dirFd);
        }
        qCInfo(lcSync) << "created the device ticket-signing key" << path;
    }
    struct stat info {};
    if (::stat(native.constData(), &info) != 0 || !S_ISREG(info.st_mode)) {
        m_error = QStringLiteral("cannot read the device key %1").arg(path);
        return false;
    }
    if ((info.st_mode & 077) != 0) {
        m_error = QStringLiteral("the device key %1 may be read or written by others (mode %2): refused; it must be 0600")
                      .arg(path, QString::number(info.st_mode & 0777, 8));
        return false;
    }
#endif
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_error = QStringLiteral("cannot read the device key %1: %2").arg(path, file.errorString());
        return false;
    }
    const QByteArray seed = file.read(TicketCodec::kKeyBytes + 1);
    const QByteArray publicKey = seed.size() == TicketCodec::kKeyBytes ? TicketCodec::publicKeyOf(seed) : QByteArray();
    if (publicKey.isEmpty()) {
        m_error = QStringLiteral("the device key %1 is not a %2-byte key: refused").arg(path).arg(TicketCodec::kKeyBytes);
        return false;
    }
    m_privateKey = seed;
    m_publicKey = publicKey;
    return true;
}

DelegationAcceptOutcome DeviceTicketSigner::accept(const QJsonObject &json)
{
    if (!isOpen())
        return notAccepted(DelegationAcceptance::NoDeviceKey, QStringLiteral("This device has no ticket-signing key."));
    const auto delegation = DelegationCodec::fromJson(json);
    if (!delegation)
        return notAccepted(DelegationAcceptance::Malformed, QStringLiteral("The lease's delegation is not well formed."));
    // Only this device's venue's keys vouch for a delegation, as at the door: with no venue known yet, none does.
    const qint64 venue = m_store.deviceVenue();
    QHash<quint32, QByteArray> venueKeys;
    for (const PublicKey &key : m_store.publicKeys()) {
        if (venue > 0 && key.venueId == venue)
            venueKeys.insert(key.keyId, key.publicKey);
    }
    switch (DelegationCodec::verify(*delegation, venueKeys)) {
    case TicketCheck::Ok:
        break;
    case TicketCheck::UnknownKey:
        return notAccepted(DelegationAcceptance::UnknownKey,
                           QStringLiteral("The delegation is signed by key %1, which is not among this venue's cached keys: refresh the keys and try again.")
                               .arg(delegation->keyId),
                           *delegation);
    case TicketCheck::InvalidSignature:
        return notAccepted(DelegationAcceptance::InvalidSignature, QStringLiteral("The delegation's venue signature does not match: it is not trusted."),
                           *delegation);
    default:
        return notAccepted(DelegationAcceptance::Malformed, QStringLiteral("The lease's delegation is not well formed."), *delegation);
    }
    if (delegation->devicePublicKey != m_publicKey)
        return notAccepted(DelegationAcceptance::OtherDevice, QStringLiteral("The delegation is for another device key than this device's."),
                           *delegation);
    DelegationRecord record;
    record.delegationId = idText(delegation->delegationId);
    record.leaseId = idText(delegation->leaseId);
    record.document = DelegationCodec::toJson(*delegation);
    record.acceptedAt = QDateTime::currentDateTimeUtc();
    if (!m_store.storeDeviceDelegation(record))
        return notAccepted(DelegationAcceptance::StoreFailed, m_store.errorString(), *delegation);
    DelegationAcceptOutcome outcome;
    outcome.result = DelegationAcceptance::Accepted;
    outcome.delegation = *delegation;
    return outcome;
}

std::optional<TicketDelegation> DeviceTicketSigner::delegationForLease(const QString &leaseId)
{
    const auto record = m_store.deviceDelegationForLease(leaseId);
    if (!record)
        return std::nullopt;
    return DelegationCodec::fromJson(record->document);
}

bool DeviceTicketSigner::isRevoked(const QString &leaseId)
{
    const auto record = m_store.deviceDelegationForLease(leaseId);
    return record && record->revokedAt.isValid();
}

bool DeviceTicketSigner::setRevoked(const QString &leaseId, const QDateTime &at)
{
    const auto record = m_store.deviceDelegationForLease(leaseId);
    if (!record)
        return true; // nothing to stop signing under
    return m_store.setDeviceDelegationRevoked(record->delegationId, at);
}

QStringList DeviceTicketSigner::followLeases(const QList<StoredLease> &leases)
{
    QStringList unknownKey;
    if (!isOpen())
        return unknownKey;
    for (const StoredLease &lease : leases) {
        const bool ended = lease.state == QLatin1String("returned") || lease.state == QLatin1String("revoked");
        if (ended) {
            if (delegationForLease(lease.leaseId) && !isRevoked(lease.leaseId))
                setRevoked(lease.leaseId);
            continue;
        }
        const QJsonObject delegation = lease.lease.value(QStringLiteral("delegation")).toObject();
        if (delegation.isEmpty() || delegationForLease(lease.leaseId))
            continue;
        const DelegationAcceptOutcome accepted = accept(delegation);
        if (accepted.result == DelegationAcceptance::UnknownKey)
            unknownKey.append(lease.leaseId);
        if (!accepted.ok())
            qCInfo(lcSync) << "delegation of lease" << lease.leaseId << "not kept yet:" << accepted.message;
    }
    return unknownKey;
}

SignOutcome DeviceTicketSigner::sign(const QString &leaseId, qint64 showId, const QString &seatId, qint64 validFrom, qint64 validUntil,
                                     const QDateTime &now)
{
    if (!isOpen())
        return refused(SignRefusal::NoDeviceKey, QStringLiteral("This device has no ticket-signing key."));
    const auto record = m_store.deviceDelegationForLease(leaseId);
    const auto delegation = record ? DelegationCodec::fromJson(record->document) : std::nullopt;
    if (!delegation)
        return refused(SignRefusal::NoDelegation, QStringLiteral("This device holds no delegation for lease %1: it cannot sign its tickets.").arg(leaseId));
    if (delegation->devicePublicKey != m_publicKey)
        return refused(SignRefusal::OtherDevice, QStringLiteral("The delegation of lease %1 is for another device key.").arg(leaseId));
    if (record->revokedAt.isValid())
        return refused(SignRefusal::DelegationRevoked, QStringLiteral("Lease %1 was revoked or given back: its seats are no longer sold here.").arg(leaseId));
    if (showId != delegation->showId)
        return refused(SignRefusal::OtherShow, QStringLiteral("Lease %1 is for show %2, not show %3.").arg(leaseId).arg(delegation->showId).arg(showId));

    TicketPayload payload;
    payload.delegationId = delegation->delegationId;
    payload.showId = showId;
    payload.seatId = seatId;
    payload.validFrom = validFrom != 0 ? validFrom : delegation->validFrom;
    payload.validUntil = validUntil != 0 ? validUntil : delegation->validUntil;
    payload.ticketId = QUuid::createUuid();
    if (TicketCodec::encodePayload(payload).isEmpty())
        return refused(SignRefusal::InvalidRequest, QStringLiteral("A ticket needs a seat id of 1 to %1 bytes and a validity window that ends after it starts.")
                                                        .arg(TicketCodec::kMaxSeatIdBytes));
    switch (DelegationCodec::covers(*delegation, payload)) {
    case DelegationCover::Covered:
        break;
    case DelegationCover::SeatNotDelegated:
        return refused(SignRefusal::SeatNotDelegated, QStringLiteral("Seat %1 is not leased to this device under lease %2.").arg(seatId, leaseId));
    case DelegationCover::OutsideWindow:
        return refused(SignRefusal::OutsideWindow, QStringLiteral("A ticket under lease %1 can be valid only within its delegation's window.").arg(leaseId));
    case DelegationCover::OtherShow:
    case DelegationCover::OtherDelegation:
        return refused(SignRefusal::OtherShow, QStringLiteral("Lease %1 is for show %2, not show %3.").arg(leaseId).arg(delegation->showId).arg(showId));
    }
    const QDateTime at = now.isValid() ? now.toUTC() : QDateTime::currentDateTimeUtc();
    if (at.toSecsSinceEpoch() >= delegation->sellUntil)
        return refused(SignRefusal::SaleWindowOver, QStringLiteral("Lease %1 allowed sales until %2: it is over.")
                                                        .arg(leaseId, QDateTime::fromSecsSinceEpoch(delegation->sellUntil, Qt::UTC).toString(Qt::ISODate)));

    // One ticket per seat and delegation: an earlier one for the seat is handed out again, never a second.
    if (const auto earlier = m_store.delegatedTicket(record->delegationId, seatId)) {
        const TicketVerification kept = TicketCodec::verify(earlier->qr, {}, {{delegation->delegationId, m_publicKey}});
        if (kept.result != TicketCheck::Ok)
            return refused(SignRefusal::StoreFailed, QStringLiteral("The ticket kept for seat %1 does not verify with this device's key.").arg(seatId));
        SignOutcome outcome;
        outcome.ticketId = earlier->ticketId;
        outcome.qr = earlier->qr;
        outcome.payload = kept.payload;
        outcome.existing = true;
        return outcome;
    }
    const QString qr = TicketCodec::sign(payload, m_privateKey);
    if (qr.isEmpty())
        return refused(SignRefusal::StoreFailed, QStringLiteral("Signing failed."));
    DelegatedTicketRecord ticket{record->delegationId, seatId, idText(payload.ticketId), qr, at};
    const auto stored = m_store.recordDelegatedTicket(ticket);
    if (!stored)
        return refused(SignRefusal::StoreFailed, QStringLiteral("The ticket could not be kept: %1").arg(m_store.errorString()));
    SignOutcome outcome;
    outcome.ticketId = stored->ticketId;
    outcome.qr = stored->qr;
    outcome.existing = stored->ticketId != ticket.ticketId; // another process signed the seat first
    outcome.payload = outcome.existing ? TicketCodec::verify(stored->qr, {}, {{delegation->delegationId, m_publicKey}}).payload : payload;
    return outcome;
}

} // namespace marquee::sync
