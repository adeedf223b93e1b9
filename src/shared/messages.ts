/**
 * The spec's user-facing strings for the conversation area (spec 000 sections 4, 5 and 8), verbatim, in one place
 * (DESIGN.md rule 8), and the notification durations of spec 000 section 9. Texts the spec does not quote (the
 * body of a notice whose title it gives) are the project's own wording and are marked "ours"; see docs/errors.md.
 * The few the first page shows are in ./composer-messages.ts (re-exported here), so the page does not carry the rest.
 */
import { COPY_SUFFIX, INSUFFICIENT_BALANCE, MODE_UNAVAILABLE, WEB_SEARCH_UNAVAILABLE } from './composer-messages';

export { COPY_SUFFIX, INSUFFICIENT_BALANCE, MODE_UNAVAILABLE, WEB_SEARCH_UNAVAILABLE };

/** Notification durations (spec 000 section 9: 5 s, 15 s, 20 s, 300 s), in milliseconds. */
export const DURATION = {
  short: 5_000,
  medium: 15_000,
  long: 20_000,
  sticky: 300_000,
} as const;

/** Spec 000 section 5: an empty prompt (the image, video and upload validations are with their features). */
export const MESSAGE_REQUIRED = 'Message is required';

/** Multi-model mode (spec 000 section 5: at most 4 additional text models, no duplicates). */
export const MULTI_MODEL = {
  tooManyExtras: 'At most 4 additional text models in multi-model mode',
  duplicate: 'Each model can be added only once in multi-model mode',
  textOnly: 'Multi-model mode takes text models only',
  /**
   * Ours (the spec gives no wording): a line of the multi-model stream that is not the protocol's (not JSON, no
   * modelId, a model not asked for, too long) is skipped; the notice says so once per request.
   */
  unreadableTitle: 'Part of the multi-model reply could not be read',
  unreadableText: 'Some of the stream was not in the expected form and was skipped. The replies shown are what arrived intact.',
} as const;

/** Attachments (the "Attach files" issue builds them; until then the engine refuses them plainly). Ours. */
export const ATTACHMENTS_UNAVAILABLE = 'Attachments are not available yet. Send your message without them.';

/** Model-request error catalogue (spec 000 section 8): titles verbatim; `...Text` entries are ours. */
export const MODEL_ERROR = {
  localStorageTitle: 'Local storage unavailable',
  localStorageText: "Your browser's local database could not be used. Reload the page to try again.", // ours
  reloadPage: 'Reload page',

  contentFlaggedTitle: 'Content Flagged',
  contentFlaggedText: 'The image was blocked because it was detected as NSFW.', // ours

  contentNotAllowedTitle: 'Content Not Allowed',
  contentNotAllowedText: 'Your prompt contains content that is not allowed. Please rephrase it and try again.', // ours

  flaggedInappropriateTitle: 'Content Flagged as Inappropriate',
  flaggedInappropriateText: 'The video request was flagged as inappropriate by the safety system. Please change your prompt and try again.', // ours

  contextMemoryTitle: 'Context Memory is indexing your conversation',
  contextMemoryResend: 'When it has finished, press Resend to send your message.', // ours
  /** The context memory notice's action (spec 000 section 4: "the user then presses Resend"). */
  resend: 'Resend',

  tooManyTokensTitle: 'Too many input tokens',
  tooManyTokensGuidance:
    "Each model accepts a limited number of input tokens. Shorten your message, start a new conversation, remove attachments, or choose a model with a larger context window.", // ours

  regionTitle: 'Gemini is not supported in your region',
  regionText: 'Please choose another model.', // ours

  promptRejectedTitle: "The model didn't accept your prompt",
  promptRejectedText: 'It was refused by the provider\'s content policy. You have not been charged.', // ours (spec: not charged)

  errorOccurredTitle: 'An error occurred',
  unknownError: 'An unknown error occurred.',

  insufficientBalanceTitle: INSUFFICIENT_BALANCE.title,
  insufficientBalanceText: INSUFFICIENT_BALANCE.text, // spec 001 section 8, InsufficientBalance
  /** Ours (issue 16 item 4): what the amount of a 402 is. */
  holdExplained: 'A paid reply holds the cost of the longest reply it could write, and returns the unused part when it ends.',
  goToWallet: INSUFFICIENT_BALANCE.goToWallet,
  /** Ours: the free flux-schnell uses of the day are spent (spec 000 section 6; the text is the gateway's). */
  freeImagesUsedTitle: 'Free images used up for today',
  deposit: 'Deposit',

  forbiddenTitle: 'There was an issue talking with the model',
  rateLimitedTitle: 'The model temporarily cannot accept any more requests',
  unavailableTitle: 'Model is temporarily not responding',
  tryAgainText: 'Please try again in a moment.', // ours

  sendErrorTitle: 'Error sending message',
} as const;

/** Other errors of spec 000 section 8. */
export const STREAM_ERROR = {
  failedToStart: 'Failed to start stream',
  failedToStartMulti: 'Failed to start multi-model stream',
  failedChat: 'There was an issue generating your response. Please try again',
  noMessage: 'No message was returned from the model',
  noMessageContent: 'No message content was returned from the model',
  supportLine: 'If this keeps happening, please contact support.', // ours ("a support contact line")
  streamBroke: 'The connection broke before the reply finished; the part that arrived is kept.', // ours
} as const;

/** Branch, delete and duplicate notices (spec 000 section 8). */
export const CONVERSATION_NOTICE = {
  unableToDeleteMessage: 'Unable to delete message',
  errorSwitchingBranch: 'Error switching conversation branch',
  errorCreatingAlternative: 'Error creating alternative response',
  errorDeletingBranch: 'Error deleting conversation branch',
  errorDuplicating: 'Error duplicating conversation',
  targetMessageNotFound: 'Target message not found',
  actionUnavailableTitle: 'Action unavailable',
  actionUnavailableText: 'Please wait for the current response to complete before duplicating.',
  alternativeLimitTitle: 'Alternative limit reached',
  alternativeLimitText: 'You can create up to 10 alternative responses per message',
  duplicated: 'Conversation duplicated',
  copySuffix: COPY_SUFFIX,
} as const;

// Flat names for the strings used most across the engine (same values as above).
export const NO_MESSAGE_RETURNED = STREAM_ERROR.noMessage;
export const NO_MESSAGE_CONTENT_RETURNED = STREAM_ERROR.noMessageContent;
/** Body of the empty-reply notice: the support contact line. */
export const NO_MESSAGE_RETURNED_TEXT = STREAM_ERROR.supportLine;
export const FAILED_TO_START_STREAM = STREAM_ERROR.failedToStart;
export const FAILED_TO_START_MULTI_STREAM = STREAM_ERROR.failedToStartMulti;

/** Export (spec 000 section 5: "Exporting needs a named conversation with messages"). */
export const EXPORT_NOTICE = {
  needsNamedConversation: 'Exporting needs a named conversation with messages',
  failedTitle: 'Export failed', // ours
  nothingToArchive: 'No conversation has a name and messages to export', // ours
} as const;
