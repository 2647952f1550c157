// SPDX-License-Identifier: AGPL-3.0-or-later
#include "offlinesales.h"
#include "deviceticketsigner.h"
#include "synclog.h"

#include <QJsonDocument>
#include <algorithm>

namespace marquee::sync {

namespace {
constexpr int kBackoffStartMs = 500;
constexpr int kBackoffMaxMs = 30000;

QString isoUtc(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}
} // namespace

QJsonObject offlineSaleBody(const OfflineSaleRecord &sale, const QJsonArray &tickets)
{
    return QJsonObject{{QStringLiteral("device_seq"), sale.deviceSeq},
                       {QStringLiteral("seat_ids"), QJsonArray::fromStringList(sale.seatIds)},
                       {QStringLiteral("amount_minor"), sale.amountMinor},
                       {QStringLiteral("currency"), sale.currency},
                       {QStringLiteral("tendered_minor"), sale.tenderedMinor},
                       {QStringLiteral("sold_at"), isoUtc(sale.soldAt)},
                       {QStringLiteral("tickets"), tickets}};
}

OfflineSales::TicketSigner OfflineSales::deviceSigner(DeviceTicketSigner &signer)
{
    return [&signer](const QString &leaseId, qint64 showId, const QStringList &seats, QString *refusal) -> std::optional<SignedTickets> {
        SignedTickets tickets;
        for (const QString &seat : seats) {
            // A seat signed before under the delegation (a retry after a crash) gets the same ticket again.
            const SignOutcome ticket = signer.sign(leaseId, showId, seat);
            if (!ticket.ok()) {
                *refusal = ticket.message.isEmpty() ? toString(ticket.refusal) : ticket.message;
                return std::nullopt;
            }
            tickets.append(QJsonObject{{QStringLiteral("ticket_id"), ticket.ticketId}, {QStringLiteral("seat_id"), seat}, {QStringLiteral("code"), ticket.qr}});
        }
        return tickets;
    };
}

OfflineSales::OfflineSales(LocalStore &store, QObject *parent)
    : QObject(parent)
    , m_store(store)
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &OfflineSales::uploadNext);
}

OfflineSales::Journaled OfflineSales::journal(const Sale &sale, const std::function<QJsonObject(const OfflineSaleRecord &)> &printData)
{
    Journaled result;
    if (sale.tenderedMinor < sale.amountMinor) {
        result.refusal = Refusal::InsufficientTender;
        return result;
    }
    if (!m_signer) {
        result.refusal = Refusal::CannotSign;
        result.detail = QStringLiteral("this till has no key to sign tickets offline");
        return result;
    }
    // The seats must not have been sold offline before (the store checks again inside the transaction).
    const QStringList sold = m_store.seatsSoldOffline(sale.leaseId);
    for (const QString &seat : sale.seatIds)
        if (sold.contains(seat)) {
            result.refusal = Refusal::AlreadySold;
            result.detail = seat;
            return result;
        }
    OfflineSaleRecord record;
    const bool ok = m_store.transaction([&] {
        record.deviceSeq = m_store.nextDeviceSeq();
        if (record.deviceSeq <= 0)
            return false;
        record.leaseId = sale.leaseId;
        record.showId = sale.showId;
        record.seatIds = sale.seatIds;
        record.amountMinor = sale.amountMinor;
        record.currency = sale.currency;
        record.tenderedMinor = sale.tenderedMinor;
        record.soldAt = sale.soldAt.toUTC();
        record.staff = sale.staff;
        QString refusal;
        const std::optional<SignedTickets> tickets = m_signer(sale.leaseId, sale.showId, sale.seatIds, &refusal);
        if (!tickets || tickets->size() != sale.seatIds.size()) {
            result.refusal = Refusal::CannotSign;
            result.detail = refusal.isEmpty() ? QStringLiteral("the tickets could not be signed") : refusal;
            return false;
        }
        record.body = offlineSaleBody(record, *tickets);
        record.printData = printData ? printData(record) : QJsonObject();
        return m_store.journalOfflineSale(record);
    });
    if (!ok) {
        if (result.refusal == Refusal::None) {
            result.refusal = Refusal::StoreFailed;
            result.detail = m_store.errorString();
        }
        qCWarning(lcSync) << "offline sale not journaled:" << result.detail;
        return result;
    }
    result.sale = record;
    qCInfo(lcSync) << "offline sale" << record.deviceSeq << "journaled:" << record.seatIds << record.amountMinor << record.currency;
    Q_EMIT changed();
    kick();
    return result;
}

bool OfflineSales::markPrinted(qint64 deviceSeq, bool printed, const QString &error)
{
    const bool ok = m_store.setOfflineSalePrinted(deviceSeq, printed ? QStringLiteral("printed") : QStringLiteral("failed"), error);
    Q_EMIT changed();
    return ok;
}

QList<OfflineSaleRecord> OfflineSales::unprinted()
{
    QList<OfflineSaleRecord> sales;
    for (const OfflineSaleRecord &sale : m_store.offlineSales())
        if (sale.printState == QLatin1String("pending"))
            sales.append(sale);
    return sales;
}

void OfflineSales::setUploader(ApiClient *client, const QString &staff)
{
    m_client = client;
    m_staff = staff;
    m_backoffMs = 0;
    kick();
}

void OfflineSales::setOnline(bool online)
{
    m_online = online;
    if (online) {
        m_backoffMs = 0;
        kick();
    }
}

void OfflineSales::kick()
{
    if (!m_inFlight && !m_retry.isActive())
        QMetaObject::invokeMethod(this, &OfflineSales::uploadNext, Qt::QueuedConnection);
}

QList<OfflineSaleRecord> OfflineSales::unsettled(const QString &staff)
{
    QList<OfflineSaleRecord> sales;
    for (const OfflineSaleRecord &sale : m_store.offlineSales())
        if (sale.uploadState != QLatin1String("booked") && (staff.isEmpty() || sale.staff == staff))
            sales.append(sale);
    return sales;
}

int OfflineSales::waitingCount(const QString &staff)
{
    int count = 0;
    for (const OfflineSaleRecord &sale : m_store.offlineSales(QStringLiteral("pending")))
        count += staff.isEmpty() || sale.staff == staff;
    return count;
}

QList<OfflineSaleRecord> OfflineSales::refused()
{
    return m_store.offlineSales(QStringLiteral("refused"));
}

void OfflineSales::uploadNext()
{
    if (m_inFlight || !m_online || !m_client || m_staff.isEmpty())
        return;
    // Oldest first, one at a time: the member's next sale waits for the answer to the one before.
    std::optional<OfflineSaleRecord> next;
    for (const OfflineSaleRecord &sale : m_store.offlineSales(QStringLiteral("pending")))
        if (sale.staff == m_staff) {
            next = sale;
            break;
        }
    if (!next) {
        Q_EMIT drained();
        return;
    }
    m_inFlight = true;
    const OfflineSaleRecord sale = *next;
    QPointer<OfflineSales> self(this);
    m_client->request(QStringLiteral("POST"), QStringLiteral("/api/v1/leases/%1/sales").arg(sale.leaseId), sale.body,
                      QStringLiteral("lease-sale-%1-%2").arg(sale.leaseId).arg(sale.deviceSeq), [self, sale](const ApiResult &result) {
                          if (self)
                              self->answered(sale, result);
                      });
}

void OfflineSales::answered(const OfflineSaleRecord &sale, const ApiResult &result)
{
    m_inFlight = false;
    const bool sessionGone = result.status == 401 || result.status == 403;
    if (result.retryable() || sessionGone) {
        // No definite answer: the same content goes again (the server books it once, keyed by device_seq). A
        // session that ended waits for the member to sign in again.
        m_store.noteOfflineSaleAttempt(sale.deviceSeq, result.describe());
        if (sessionGone) {
            m_client = nullptr;
            Q_EMIT changed();
            return;
        }
        m_backoffMs = m_backoffMs == 0 ? kBackoffStartMs : std::min(kBackoffMaxMs, m_backoffMs * 2);
        qCInfo(lcSync) << "offline sale" << sale.deviceSeq << "upload: no answer (" << result.describe() << "), again in" << m_backoffMs << "ms";
        m_retry.start(m_backoffMs);
        Q_EMIT changed();
        return;
    }
    m_backoffMs = 0;
    if (result.ok()) {
        const QJsonObject answer = result.json();
        m_store.answerOfflineSale(sale.deviceSeq, QStringLiteral("booked"), result.status, result.body, answer.value(QStringLiteral("booking_id")).toString(),
                                  answer.value(QStringLiteral("booking_ref")).toString(), {});
        qCInfo(lcSync) << "offline sale" << sale.deviceSeq << "booked as" << answer.value(QStringLiteral("booking_ref")).toString();
        Q_EMIT saleAnswered(sale.deviceSeq, QStringLiteral("booked"));
    } else {
        // A refusal retrying cannot change (price_mismatch, seats_not_leased, ...): kept with its reason for a person.
        m_store.answerOfflineSale(sale.deviceSeq, QStringLiteral("refused"), result.status, result.body, {}, {},
                                  result.error.code + QStringLiteral(": ") + result.error.message);
        qCWarning(lcSync) << "offline sale" << sale.deviceSeq << "refused:" << result.describe();
        Q_EMIT saleAnswered(sale.deviceSeq, QStringLiteral("refused"));
    }
    Q_EMIT changed();
    uploadNext();
}

} // namespace marquee::sync
