// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"
#include "ticketprinter.h"

#include "sync/apiclient.h"
#include "sync/leasekeeper.h"
#include "sync/localstore.h"
#include "sync/offlinesales.h"
#include "sync/syncengine.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>
#include <functional>
#include <memory>

namespace marquee::sync {
class DeviceTicketSigner;
}

namespace marquee::app {

class JsonTableModel;
class SeatMapModel;
class StaffSession;

/**
 * @brief The till's offline mode (docs/app.md, "The till offline"), as the screens see it (`Till.offline`): whether
 * the server can be reached (the till's own health probe, sync::SyncEngine), the leases it keeps for the next
 * shows (sync::LeaseKeeper), and its journal of offline sales (sync::OfflineSales) with their uploads.
 *
 * Offline, the seat map offers only the seats leased to this till (every other seat greyed: "not leased to this
 * till"); a cash sale of them is priced from the tiers cached while online, journaled (fsynced) with signed
 * tickets before they print, and reported to the server when the link is back — with the session of the member
 * who sold it, so their shift counts it once. A sale journaled and not printed (the till stopped between the two)
 * prints when the till starts again.
 *
 * Active for a till with its own device token (`--token`) and a lease window above 0; otherwise `enabled` is false
 * and the till is online-only, as before.
 */
class TillOffline : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by the till controller")
    /** @brief This till keeps leases and may sell offline. */
    Q_PROPERTY(bool enabled READ enabled CONSTANT)
    /** @brief The server cannot be reached: only leased seats, cash only. */
    Q_PROPERTY(bool offline READ offline NOTIFY offlineChanged)
    /** @brief The banner's sentence (offline, or offline sales still to report or refused); empty for none. */
    Q_PROPERTY(QString bannerText READ bannerText NOTIFY stateChanged)
    /** @brief The banner is a warning (offline, or a refusal to settle). */
    Q_PROPERTY(bool bannerIsWarning READ bannerIsWarning NOTIFY stateChanged)
    /** @brief Offline sales not reported yet (their upload has no answer). */
    Q_PROPERTY(int waitingCount READ waitingCount NOTIFY stateChanged)
    /** @brief Offline sales the server refused: [{device_seq, seats, amount, reason}], for a manager to settle. */
    Q_PROPERTY(QVariantList refusals READ refusals NOTIFY stateChanged)
    /** @brief The seats of the current show this till may sell offline now, as text ("F7, F8, G5"). */
    Q_PROPERTY(QString leasedSeatsText READ leasedSeatsText NOTIFY stateChanged)
    Q_PROPERTY(int leasedSeatCount READ leasedSeatCount NOTIFY stateChanged)
public:
    explicit TillOffline(const AppConfig &config, QObject *parent = nullptr);
    ~TillOffline() override;

    bool enabled() const { return m_enabled; }
    bool offline() const { return m_enabled && m_offline; }
    QString bannerText() const;
    bool bannerIsWarning() const;
    int waitingCount() const;
    QVariantList refusals() const;
    QString leasedSeatsText() const;
    int leasedSeatCount() const;

    /** @brief The till's shows (its table model): the keeper leases for those starting within the window. */
    void watchShows(JsonTableModel *shows);
    /** @brief The seat map the cashier picks from: offline it shows the leased seats alone. */
    void attachSeatMap(SeatMapModel *map);
    /** @brief The signed-in member: their session uploads their offline sales; its reads are cached for offline. */
    void attachSession(StaffSession *session);

    /** @brief Why @p seatId of the current show cannot be sold offline now; empty when it can. */
    QString seatRefusal(const QString &seatId) const;
    /** @brief The lease all of @p seatIds are sold under, or empty (with @p why) when they cannot be sold offline. */
    QString leaseFor(qint64 showId, const QStringList &seatIds, QString *why) const;

    /** @brief Prints tickets and receipt (the till's own printer path): false when they did not come out. */
    using Printer = std::function<bool(const BookingPrint &print, bool kickDrawer)>;
    void setPrinter(Printer printer) { m_printer = std::move(printer); }

    /** @brief An offline cash sale done: its journal entry and what was printed. */
    struct Sale {
        bool ok = false;
        QString message;     ///< why not, for the cashier
        qint64 deviceSeq = 0;
        qint64 amountMinor = 0;
        QString currency;
        BookingPrint print;
        bool printed = false;
    };
    /**
     * @brief Sell @p seatIds of @p show (as the till lists it) for cash, @p tenderedMinor handed over, by @p staff:
     * priced from @p map (the tiers cached while online), journaled with signed tickets, then printed.
     */
    Sale sellCash(const QJsonObject &show, const QStringList &seatIds, qint64 tenderedMinor, const QString &staff, const SeatMapModel *map,
                  const QString &paidWith);
    /** @brief Print every sale journaled and not printed (after a restart); returns how many printed. */
    int printUnprinted();
    /** @brief False (and @p why) while offline sales of @p staff wait for their upload: the Z-report would miss them. */
    bool mayCloseShift(const QString &staff, QString *why) const;

    sync::LocalStore &store() { return m_store; }
    sync::LeaseKeeper *keeper() const { return m_keeper.get(); }
    sync::OfflineSales *sales() const { return m_sales.get(); }
    sync::SyncEngine *engine() const { return m_engine.get(); }
    /** @brief The device key that signs offline tickets; null until this build has one. */
    sync::DeviceTicketSigner *signer() const { return m_signer.get(); }

Q_SIGNALS:
    void offlineChanged();
    void stateChanged();

private:
    void setOnline(bool online);
    void applyOverlay();
    void cacheLeasedShows();
    void refreshUploader();
    /** @brief Keep the delegation of every lease not kept yet (the venue's keys may have come after it), and stop
     *  signing under leases given back or revoked. */
    void followDelegations();

    AppConfig m_config;
    bool m_enabled = false;
    bool m_offline = false;
    sync::LocalStore m_store;
    std::unique_ptr<sync::ApiClient> m_api;       ///< the till's own token: probe, leases, feeds
    std::unique_ptr<sync::ApiClient> m_uploader;  ///< the signed-in member's session: offline sales
    std::unique_ptr<sync::SyncEngine> m_engine;
    std::unique_ptr<sync::LeaseKeeper> m_keeper;
    std::unique_ptr<sync::OfflineSales> m_sales;
    std::unique_ptr<sync::DeviceTicketSigner> m_signer;
    QPointer<SeatMapModel> m_map;
    QPointer<StaffSession> m_session;
    Printer m_printer;
    bool m_applying = false;
    QSet<QString> m_keysAskedFor; ///< leases whose delegation named a key not cached yet: the keys were asked for once
};

} // namespace marquee::app
