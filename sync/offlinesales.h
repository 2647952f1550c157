// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "apiclient.h"
#include "localstore.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <functional>
#include <optional>

namespace marquee::sync {

class DeviceTicketSigner;

/**
 * @brief A till's sales from its leases while the server cannot be reached (docs/sync.md, "The till's journal of
 * offline sales"): each is journaled in the LocalStore — committed and fsynced — before its tickets are printed,
 * under the till's own `device_seq`, with the upload exactly as it will be sent. Once the link is back, the uploads
 * go out oldest first (`POST /api/v1/leases/{id}/sales`), each sent again with the same content until the server
 * gives a definite answer, which is kept on the sale: booked (its booking) or refused (the server's code, shown
 * to the cashier and the manager; never dropped).
 *
 * An upload goes with the session of the staff member who sold it (their open shift counts the sale): sales of
 * another member wait until that member is signed in here again.
 */
class OfflineSales : public QObject
{
    Q_OBJECT
public:
    /** @brief One ticket the till signed for a seat: ticket_id, seat_id, code (the QR). */
    using SignedTickets = QJsonArray;
    /**
     * @brief Signs the tickets of a sale under its lease (the device's key and the lease's delegation); nothing
     * (and @p refusal says why) when it cannot — then the sale is refused: no unsigned ticket is ever printed.
     */
    using TicketSigner = std::function<std::optional<SignedTickets>(const QString &leaseId, qint64 showId, const QStringList &seatIds,
                                                                    QString *refusal)>;

    /** @brief A sale to journal. */
    struct Sale {
        QString leaseId;       ///< the lease every seat is sold under (LeaseKeeper::leaseFor)
        qint64 showId = 0;
        QStringList seatIds;
        qint64 amountMinor = 0; ///< the seats' price from the tiers cached while online
        QString currency;
        qint64 tenderedMinor = 0;
        QString staff;
        QDateTime soldAt = QDateTime::currentDateTimeUtc();
    };
    /** @brief Why a sale was not journaled. */
    enum class Refusal { None, InsufficientTender, CannotSign, AlreadySold, StoreFailed };
    struct Journaled {
        Refusal refusal = Refusal::None;
        QString detail;           ///< the signer's or the store's reason
        OfflineSaleRecord sale;   ///< as journaled (deviceSeq, body, print data)
        bool ok() const { return refusal == Refusal::None; }
    };

    explicit OfflineSales(LocalStore &store, QObject *parent = nullptr);

    /** @brief The signer of a device's own key (DeviceTicketSigner::sign, seat by seat, under the lease's delegation). */
    static TicketSigner deviceSigner(DeviceTicketSigner &signer);

    void setTicketSigner(TicketSigner signer) { m_signer = std::move(signer); }
    bool canSign() const { return bool(m_signer); }
    /**
     * @brief Journal @p sale in one transaction: the next device_seq, the signed tickets, the upload body, and the
     * print data @p printData makes of it (tickets and receipt, as they will be printed). Fsynced on return.
     */
    Journaled journal(const Sale &sale, const std::function<QJsonObject(const OfflineSaleRecord &sale)> &printData);
    /** @brief The sale's tickets came out (or failed to): kept on the sale. */
    bool markPrinted(qint64 deviceSeq, bool printed, const QString &error = {});
    /** @brief Sales journaled and never printed (the till stopped between the two): to print now. */
    QList<OfflineSaleRecord> unprinted();

    /** @brief The client uploads go with (the signed-in session of @p staff), or none (signed out). */
    void setUploader(ApiClient *client, const QString &staff);
    void setOnline(bool online);
    bool isOnline() const { return m_online; }
    /** @brief Upload what is due now. */
    void kick();
    /** @brief Sales not booked yet (waiting or refused); of @p staff only when given. */
    QList<OfflineSaleRecord> unsettled(const QString &staff = {});
    /** @brief Sales waiting for their upload's answer; of @p staff only when given. */
    int waitingCount(const QString &staff = {});
    QList<OfflineSaleRecord> refused();
    /** @brief An upload is on its way. */
    bool uploading() const { return m_inFlight; }

Q_SIGNALS:
    /** @brief A sale was journaled, printed, or its upload answered. */
    void changed();
    /** @brief The server answered a sale's upload: @p state booked or refused. */
    void saleAnswered(qint64 deviceSeq, const QString &state);
    /** @brief Every upload of the signed-in member is answered. */
    void drained();

private:
    void uploadNext();
    void answered(const OfflineSaleRecord &sale, const ApiResult &result);

    LocalStore &m_store;
    TicketSigner m_signer;
    QPointer<ApiClient> m_client;
    QString m_staff;
    bool m_online = false;
    bool m_inFlight = false;
    int m_backoffMs = 0;
    QTimer m_retry;
};

/** @brief The upload of a sale: POST /api/v1/leases/{id}/sales's body. */
QJsonObject offlineSaleBody(const OfflineSaleRecord &sale, const QJsonArray &tickets);

} // namespace marquee::sync
