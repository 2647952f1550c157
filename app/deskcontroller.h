// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"
#include "deskleases.h"
#include "jsontablemodel.h"
#include "seatmapmodel.h"
#include "staffsession.h"

#include <QDate>
#include <QJsonObject>
#include <QObject>
#include <QTranslator>
#include <QVariantMap>
#include <QTimeZone>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

namespace marquee::app {

/**
 * @brief The manager desk (`--role manager`): sales dashboard over a date range (per day, show, movie, channel
 * and device), occupancy per show with a sell-order heat map, refunds, kiosk fleet health, the audit log, and
 * creating and editing shows. Every table is a JsonTableModel (sortable, filterable, CSV export). QML sees it as
 * the `Desk` singleton.
 *
 * Pages: `signin`, `dashboard`, `occupancy`, `shows`, `fleet`, `shifts`, `audit`. Changing the page clears the
 * notice (`message`): it belongs to the page that raised it.
 */
class DeskController : public QObject
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Desk)
    QML_SINGLETON
    Q_PROPERTY(StaffSession *session READ session CONSTANT)
    Q_PROPERTY(QString page READ page WRITE setPage NOTIFY pageChanged)
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    Q_PROPERTY(QString message READ message NOTIFY messageChanged)
    Q_PROPERTY(bool messageIsError READ messageIsError NOTIFY messageChanged)
    /** @brief The report range, inclusive dates (YYYY-MM-DD). */
    Q_PROPERTY(QString fromDate READ fromDate NOTIFY rangeChanged)
    Q_PROPERTY(QString toDate READ toDate NOTIFY rangeChanged)
    /**
     * @brief Totals over the range: revenue, tickets, bookings, refunds, net, average (texts) and *_minor (refunds of
     * bookings, as the sales report counts them), and unbooked_refund_count: refunds of payments that never became a
     * booking, listed in the Refunds table only.
     */
    Q_PROPERTY(QVariantMap totals READ totals NOTIFY totalsChanged)
    Q_PROPERTY(JsonTableModel *salesByDay READ salesByDay CONSTANT)
    Q_PROPERTY(JsonTableModel *salesByShow READ salesByShow CONSTANT)
    Q_PROPERTY(JsonTableModel *salesByMovie READ salesByMovie CONSTANT)
    Q_PROPERTY(JsonTableModel *salesByChannel READ salesByChannel CONSTANT)
    Q_PROPERTY(JsonTableModel *salesByDevice READ salesByDevice CONSTANT)
    /** @brief Shows in the catalogue with their occupancy: show_id, title, starts_at, screen, capacity, sold, held, occupancy. */
    Q_PROPERTY(JsonTableModel *shows READ shows CONSTANT)
    /**
     * @brief Every refund of the range (`GET /api/v1/reports/refunds`): staff cancellations and overrides and the
     * server's own (a payment that landed after its hold was lost), with kind, amount, booking, reason, who, device.
     */
    Q_PROPERTY(JsonTableModel *refunds READ refunds CONSTANT)
    Q_PROPERTY(JsonTableModel *devices READ devices CONSTANT)
    /**
     * @brief What the kiosks' latest reconciliations left for a person, every device's problem items:
     * [{device, kind ("Ticket"/"Payment"), id, booking_ref, state, reason, finished}], payments first.
     */
    Q_PROPERTY(QVariantList reconciliationProblems READ reconciliationProblems NOTIFY devicesChanged)
    /**
     * @brief Payments awaiting reconciliation on the server (`GET /api/v1/reports/reconciliation`): the orders its
     * reconciler still has open — not started, paid but not booked, past the payment window, refunds due.
     */
    Q_PROPERTY(JsonTableModel *reconciliation READ reconciliation CONSTANT)
    /**
     * @brief The audit log of the range (`GET /api/v1/reports/audit`), loaded a page of auditPageSize entries at a
     * time, newest first; loadMoreAudit() appends the next page.
     */
    Q_PROPERTY(JsonTableModel *audit READ audit CONSTANT)
    /** @brief Entries of the range on the server (the loaded ones are audit.totalCount). */
    Q_PROPERTY(qint64 auditTotal READ auditTotal NOTIFY auditPageChanged)
    /** @brief Older entries of the range are not loaded yet. */
    Q_PROPERTY(bool auditHasMore READ auditHasMore NOTIFY auditPageChanged)
    /** @brief What a cut list says ("Showing the newest 2,000 of 2,531 …"); empty when the whole range is loaded. */
    Q_PROPERTY(QString auditNotice READ auditNotice NOTIFY auditPageChanged)
    Q_PROPERTY(int auditPageSize READ auditPageSize CONSTANT)
    Q_PROPERTY(JsonTableModel *shifts READ shifts CONSTANT)
    /** @brief The show whose occupancy is open, and its seats (for the heat map). */
    Q_PROPERTY(SeatMapModel *occupancyMap READ occupancyMap CONSTANT)
    /** @brief seat_id → 0..1, how early the seat sold (1 = first) — the heat map; unsold seats are absent. */
    Q_PROPERTY(QVariantMap heat READ heat NOTIFY occupancyChanged)
    /** @brief The open show's occupancy: title, capacity, sold, held, free, percent. */
    Q_PROPERTY(QVariantMap occupancy READ occupancy NOTIFY occupancyChanged)
    /** @brief The occupancy show's live house holds: [{hold_id, seats (text), seat_count, reason, created}]. */
    Q_PROPERTY(QVariantList houseHolds READ houseHolds NOTIFY houseHoldsChanged)
    /** @brief Movies and screens known from the catalogue, for the show editor: [{id, name}]. */
    Q_PROPERTY(QVariantList movieChoices READ movieChoices NOTIFY choicesChanged)
    Q_PROPERTY(QVariantList screenChoices READ screenChoices NOTIFY choicesChanged)
    /** @brief Where CSV exports go. */
    Q_PROPERTY(QString exportDir READ exportDir CONSTANT)
    /** @brief The tills' leases per show (revoke, release unreported seats): the `leases` page. */
    Q_PROPERTY(DeskLeases *leases READ leases CONSTANT)
public:
    explicit DeskController(const AppConfig &config, QObject *parent = nullptr);
    ~DeskController() override;

    static void setInstance(DeskController *controller);
    static DeskController *create(QQmlEngine *, QJSEngine *);

    StaffSession *session() const { return m_session; }
    QString page() const { return m_page; }
    void setPage(const QString &page);
    bool busy() const { return m_pending > 0; }
    QString message() const { return m_message; }
    bool messageIsError() const { return m_messageIsError; }
    QString fromDate() const { return m_from.toString(Qt::ISODate); }
    QString toDate() const { return m_to.toString(Qt::ISODate); }
    QVariantMap totals() const { return m_totals; }
    JsonTableModel *salesByDay() const { return m_salesByDay; }
    JsonTableModel *salesByShow() const { return m_salesByShow; }
    JsonTableModel *salesByMovie() const { return m_salesByMovie; }
    JsonTableModel *salesByChannel() const { return m_salesByChannel; }
    JsonTableModel *salesByDevice() const { return m_salesByDevice; }
    JsonTableModel *shows() const { return m_shows; }
    JsonTableModel *refunds() const { return m_refunds; }
    JsonTableModel *devices() const { return m_devices; }
    QVariantList reconciliationProblems() const { return m_reconciliationProblems; }
    JsonTableModel *reconciliation() const { return m_reconciliation; }
    JsonTableModel *audit() const { return m_audit; }
    qint64 auditTotal() const { return m_auditTotal; }
    bool auditHasMore() const { return m_auditNextBefore > 0; }
    QString auditNotice() const;
    static constexpr int kAuditPageSize = 2000;
    int auditPageSize() const { return kAuditPageSize; }
    JsonTableModel *shifts() const { return m_shifts; }
    SeatMapModel *occupancyMap() const { return m_occupancyMap; }
    QVariantMap heat() const { return m_heat; }
    QVariantMap occupancy() const { return m_occupancy; }
    QVariantList houseHolds() const { return m_houseHolds; }
    QVariantList movieChoices() const { return m_movieChoices; }
    QVariantList screenChoices() const { return m_screenChoices; }
    QString exportDir() const;
    DeskLeases *leases() const { return m_leases; }

    /** @brief Reload everything for the current range. */
    Q_INVOKABLE void refresh();
    /** @brief Append the audit log's next (older) page of the same range; nothing when all is loaded or loading. */
    Q_INVOKABLE void loadMoreAudit();
    /** @brief Set the range (inclusive dates, YYYY-MM-DD) and reload; false when not valid dates or reversed. */
    Q_INVOKABLE bool setRange(const QString &from, const QString &to);
    /** @brief The last @p days days up to today. */
    Q_INVOKABLE void setLastDays(int days);
    /** @brief Open a show's occupancy and heat map. */
    Q_INVOKABLE void openOccupancy(qint64 showId);
    /**
     * @brief Keep @p seatsText ("A4 A5", "a4,a5") of the occupancy show back for house use with @p reason
     * (`POST /api/v1/shows/{id}/house-holds`); all or none: a seat someone holds or bought refuses the lot.
     */
    Q_INVOKABLE void placeHouseHold(const QString &seatsText, const QString &reason);
    /** @brief Free a house hold's seats at once (`DELETE /api/v1/house-holds/{id}`), @p reason audited. */
    Q_INVOKABLE void releaseHouseHold(const QString &holdId, const QString &reason);
    /** @brief Write @p model's visible rows to exportDir/<name>-<from>-<to>.csv; returns the path or "". */
    Q_INVOKABLE QString exportTable(marquee::app::JsonTableModel *model, const QString &name);
    /**
     * @brief Create a show: movie_id, screen_id, starts_at ("yyyy-MM-dd HH:mm" in the venue's zone, screenZone()),
     * currency (empty: the venue's), price_tiers ({tier: "12.50"}). The server checks everything again.
     */
    Q_INVOKABLE void createShow(const QVariantMap &fields);
    /** @brief Edit a show: starts_at and/or price_tiers as in createShow, and a reason for the audit log. */
    Q_INVOKABLE void updateShow(qint64 showId, const QVariantMap &fields);
    Q_INVOKABLE void setWaitingRoom(qint64 showId, bool on);

    /** @brief The venue currency new shows on @p screenId default to (from the catalogue), or "". */
    Q_INVOKABLE QString screenCurrency(qint64 screenId) const;
    /** @brief The IANA zone of @p screenId's city, in which its new shows' starts are typed. */
    Q_INVOKABLE QString screenZone(qint64 screenId) const;
    /** @brief The start of @p show (a shows row) as the editor shows it: "yyyy-MM-dd HH:mm" in the show's zone. */
    Q_INVOKABLE QString startsInput(const QVariantMap &show) const;
    /** @brief A price in minor units as the editor shows it, by the currency's exponent ("12.50", "1500"); "" for none. */
    Q_INVOKABLE QString priceInput(const QVariant &minor, const QString &currency) const;

    /** @brief What the show form is about: a new show or an edit, the zone its start is typed in, its currency. */
    struct ShowForm {
        bool creating = false;
        QTimeZone zone;   ///< the venue's zone: the typed start is wall-clock time there
        QString currency; ///< the show's currency (edit) or the venue's default (new); sets the price decimals
    };
    /** @brief Turn a form's fields into the API body; the error for the person when a field is not valid. */
    static std::optional<QJsonObject> showBody(const QVariantMap &fields, const ShowForm &form, QString *error);

Q_SIGNALS:
    void pageChanged();
    void busyChanged();
    void messageChanged();
    void rangeChanged();
    void totalsChanged();
    void occupancyChanged();
    void houseHoldsChanged();
    void devicesChanged();
    void auditPageChanged();
    void choicesChanged();
    /** @brief A show was created or changed (the id). */
    void showSaved(qint64 showId);

private:
    QVariantMap screenChoice(qint64 screenId) const;
    QVariantMap showRow(qint64 showId) const;
    void setMessage(const QString &message, bool error = false);
    void begin();
    void end();
    void failed(const ApiReply &reply, const QString &what);
    void loadSales(const QString &groupBy, JsonTableModel *model);
    void loadShows();
    void loadDevices();
    void loadReconciliation();
    void loadRefunds();
    void loadAudit();
    void loadAuditPage(qint64 before);
    void loadShifts();
    void loadHouseHolds(qint64 showId);
    void computeTotals();
    QString rangeQuery() const;

    AppConfig m_config;
    QTranslator m_translator; ///< the catalogue of config.language, installed while this controller lives
    StaffSession *m_session = nullptr;
    QString m_page = QStringLiteral("signin");
    int m_pending = 0;
    QString m_message;
    bool m_messageIsError = false;
    QDate m_from;
    QDate m_to;
    QVariantMap m_totals;
    JsonTableModel *m_salesByDay = nullptr;
    JsonTableModel *m_salesByShow = nullptr;
    JsonTableModel *m_salesByMovie = nullptr;
    JsonTableModel *m_salesByChannel = nullptr;
    JsonTableModel *m_salesByDevice = nullptr;
    JsonTableModel *m_shows = nullptr;
    JsonTableModel *m_refunds = nullptr;
    qint64 m_unbookedRefunds = 0; ///< refunds of the range without a booking (a payment whose hold was lost)
    JsonTableModel *m_devices = nullptr;
    QVariantList m_reconciliationProblems;
    JsonTableModel *m_reconciliation = nullptr;
    JsonTableModel *m_audit = nullptr;
    QJsonArray m_auditRows;         ///< every loaded page, in order
    QString m_auditRange;           ///< the range query of the loaded pages (a later page must ask for the same)
    qint64 m_auditTotal = 0;
    qint64 m_auditNextBefore = 0;   ///< the next page's cursor, 0 when the range is loaded to its end
    int m_auditGeneration = 0;      ///< bumped by each fresh load, so a page for an older range is dropped
    bool m_auditLoadingMore = false;
    JsonTableModel *m_shifts = nullptr;
    SeatMapModel *m_occupancyMap = nullptr;
    qint64 m_occupancyShowId = 0;
    QVariantMap m_heat;
    QVariantMap m_occupancy;
    QVariantList m_houseHolds;
    QVariantList m_movieChoices;
    QVariantList m_screenChoices;
    DeskLeases *m_leases = nullptr;
};

} // namespace marquee::app
