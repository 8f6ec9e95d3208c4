/**
 * /deal-mirror (spec part 1 §2): applies the Deal Mirror promo — stores its marker in the source_info
 * cookie for 12 hours — shows 'Your Deal Mirror Promo code has been applied!' and continues to the pricing page, from
 * where sign-up carries the promo code.
 */
import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { DEAL_MIRROR_SOURCE, DEAL_MIRROR_TOAST, setSourceInfo } from '../source';
import { showToast } from '../toast';

export function DealMirrorPage() {
  const navigate = useNavigate();
  useEffect(() => {
    setSourceInfo(DEAL_MIRROR_SOURCE);
    showToast(DEAL_MIRROR_TOAST, 'success');
    navigate('/pricing', { replace: true });
  }, [navigate]);
  return null;
}
